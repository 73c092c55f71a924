#include "modelkit/device/session_ep.h"

#include <unordered_map>
#include <vector>

#include "modelkit/base/error.h"
#include "modelkit/ort/provider_append.h"
#include "modelkit/ort/runtime.h"
#include "ort_device_kind.h"

namespace modelkit::device {
namespace {

// ORT's EP devices for `ep_name` on `device`.
std::vector<Ort::ConstEpDevice> EpDevicesFor(const std::string& ep_name, DeviceKind device) {
  std::vector<Ort::ConstEpDevice> matching;
  for (const Ort::ConstEpDevice& ep_device : ort::SharedEnv().GetEpDevices()) {
    if (ep_name == ep_device.EpName() && DeviceKindOf(ep_device.Device().Type()) == device)
      matching.push_back(ep_device);
  }
  return matching;
}

}  // namespace

void AppendSelectedEp(Ort::SessionOptions& options, const EpSelection& selection,
                      std::map<std::string, std::string> provider_options) {
  const EpRow& ep = *selection.ep;
  if (ep.device_type_option && !provider_options.count("device_type")) {
    provider_options["device_type"] = std::string(DeviceTypeOptionValue(selection.device));
  }
  try {
    const std::vector<Ort::ConstEpDevice> ep_devices = EpDevicesFor(ep.name, selection.device);
    if (ep.IsCpu()) return;  // always present; appending it by device changes nothing
    if (!ep_devices.empty()) {
      options.AppendExecutionProvider_V2(
          ort::SharedEnv(), ep_devices,
          std::unordered_map<std::string, std::string>(provider_options.begin(), provider_options.end()));
      return;
    }
    if (ep.IsPlugin()) {
      throw RuntimeError("EP '" + ep.name + "' offers no device of class " + std::string(DeviceName(selection.device)) +
                         " in ONNX Runtime");
    }
    if (ep.append_method == ort::AppendMethod::kUnsupported) {
      throw RuntimeError("EP '" + ep.name + "' cannot be used on Linux: ONNX Runtime offers it on other systems only");
    }
    ort::AppendBuiltInProvider(options, ep.append_method, ep.append_name, provider_options);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ExitCode::kRuntimeFailure, "cannot use EP '" + ep.name + "'");
  }
}

}  // namespace modelkit::device
