#include "inventory_json.h"

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"

namespace modelkit::device {
namespace {

using nlohmann::json;

// Reads typed values at a JSON path, throwing UsageError("<origin>: <path>: ...") on a mismatch.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  [[noreturn]] void Fail(const std::string& path, const std::string& what) const {
    throw UsageError(origin_ + ": " + path + ": " + what);
  }

  const json& Array(const json& parent, const char* key, const std::string& path) const {
    static const json kEmpty = json::array();
    if (!parent.contains(key)) return kEmpty;
    const json& value = parent.at(key);
    if (!value.is_array()) Fail(path + "." + key, "expected an array");
    return value;
  }

  std::string String(const json& parent, const char* key, const std::string& path, bool required) const {
    if (!parent.contains(key) || parent.at(key).is_null()) {
      if (required) Fail(path + "." + key, "missing");
      return {};
    }
    if (!parent.at(key).is_string()) Fail(path + "." + key, "expected a string");
    return parent.at(key).get<std::string>();
  }

  uint32_t Uint(const json& parent, const char* key, const std::string& path) const {
    if (!parent.contains(key)) return 0;
    if (!parent.at(key).is_number_unsigned()) Fail(path + "." + key, "expected a non-negative integer");
    return parent.at(key).get<uint32_t>();
  }

  DeviceKind Device(const json& value, const std::string& path) const {
    if (!value.is_string()) Fail(path, "expected a device name (npu, gpu or cpu)");
    const std::optional<DeviceKind> kind = ParseDeviceKind(value.get<std::string>());
    if (!kind) Fail(path, "unknown device '" + value.get<std::string>() + "'; expected npu, gpu or cpu");
    return *kind;
  }

 private:
  std::string origin_;
};

}  // namespace

std::string_view EpSourceName(EpSource source) {
  return source == EpSource::kEpDevices ? "ep_devices" : "available_providers";
}

Inventory InventoryFromJson(const nlohmann::json& root, std::string_view origin) {
  const Reader reader(origin);
  if (!root.is_object()) reader.Fail("$", "expected a JSON object");
  Inventory inventory;
  inventory.ort_version = reader.String(root, "ort_version", "$", false);

  const json& devices = reader.Array(root, "devices", "$");
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string path = "$.devices[" + std::to_string(i) + "]";
    const json& item = devices[i];
    if (!item.is_object()) reader.Fail(path, "expected an object");
    if (!item.contains("type")) reader.Fail(path + ".type", "missing");
    HardwareDevice device;
    device.kind = reader.Device(item.at("type"), path + ".type");
    device.vendor = reader.String(item, "vendor", path, false);
    device.name = reader.String(item, "name", path, false);
    device.vendor_id = reader.Uint(item, "vendor_id", path);
    device.device_id = reader.Uint(item, "device_id", path);
    inventory.devices.push_back(std::move(device));
  }

  const json& eps = reader.Array(root, "execution_providers", "$");
  for (size_t i = 0; i < eps.size(); ++i) {
    const std::string path = "$.execution_providers[" + std::to_string(i) + "]";
    const json& item = eps[i];
    if (!item.is_object()) reader.Fail(path, "expected an object");
    EpStatus ep;
    ep.name = reader.String(item, "name", path, true);
    const json& ep_devices = reader.Array(item, "devices", path);
    for (size_t d = 0; d < ep_devices.size(); ++d) {
      ep.devices.push_back(reader.Device(ep_devices[d], path + ".devices[" + std::to_string(d) + "]"));
    }
    if (item.contains("usable")) {
      if (!item.at("usable").is_boolean()) reader.Fail(path + ".usable", "expected true or false");
      ep.usable = item.at("usable").get<bool>();
    } else {
      ep.usable = true;
    }
    ep.reason = reader.String(item, "reason", path, false);
    const std::string library = reader.String(item, "library", path, false);
    if (!library.empty()) ep.library = library;
    const std::string source = reader.String(item, "source", path, false);
    if (source.empty() || source == "ep_devices") {
      ep.source = EpSource::kEpDevices;
    } else if (source == "available_providers") {
      ep.source = EpSource::kAvailableProviders;
    } else {
      reader.Fail(path + ".source", "unknown source '" + source + "'; expected ep_devices or available_providers");
    }
    inventory.eps.push_back(std::move(ep));
  }
  return inventory;
}

Inventory InventoryFromJsonFile(const std::filesystem::path& path) {
  const std::string text = ReadTextFile(path, "machine description");
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) throw UsageError(path.string() + ": not valid JSON");
  return InventoryFromJson(root, path.string());
}

}  // namespace modelkit::device
