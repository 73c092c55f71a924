#include "modelkit/device/device_request.h"

#include <string>

#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"

namespace modelkit::device {

DeviceRequest DeviceRequest::Parse(std::string_view text) {
  if (EqualsIgnoreCase(text, kConfigName)) return Config();
  if (EqualsIgnoreCase(text, "auto")) return Auto();
  if (const std::optional<DeviceKind> kind = ParseDeviceKind(text)) return Of(*kind);
  throw UsageError("unknown device '" + std::string(text) + "' (--device)" +
                   DidYouMeanThenExpected(text, {"auto", "npu", "gpu", "cpu", std::string(kConfigName)}) +
                   ": auto, npu, gpu, cpu, or config (genai bundles: follow the bundle's own EP routing)");
}

std::string_view DeviceRequest::Name() const {
  switch (mode_) {
    case Mode::kConfig:
      return kConfigName;
    case Mode::kAuto:
      return "auto";
    case Mode::kExplicit:
      return DeviceName(kind_);
  }
  return "auto";
}

}  // namespace modelkit::device
