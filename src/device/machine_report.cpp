#include "modelkit/device/machine_report.h"

#include <algorithm>

#include "inventory_json.h"
#include "modelkit/base/strings.h"
#include "modelkit/base/text_table.h"

namespace modelkit::device {
namespace {

using nlohmann::ordered_json;

// One line of the device section: a hardware device, or a device class served by an EP that reports no
// hardware device (WebGPU never appears in ORT's device list).
struct DeviceLine {
  std::optional<int> rank;
  DeviceKind kind = DeviceKind::kCpu;
  std::string vendor;
  std::string name;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::vector<std::string> eps;
};

std::vector<DeviceLine> DeviceLines(const Machine& machine) {
  const Resolver resolver = machine.MakeResolver();
  const std::vector<DeviceKind> available = resolver.AvailableDevices();
  std::vector<DeviceLine> lines;
  for (DeviceKind kind : kDevicePriority) {
    std::optional<int> rank;
    if (auto it = std::find(available.begin(), available.end(), kind); it != available.end()) {
      rank = static_cast<int>(it - available.begin()) + 1;
    }
    std::vector<std::string> eps;
    for (const EpRow* row : resolver.ResolveEps(kind)) eps.push_back(row->name);
    bool any_hardware = false;
    for (const HardwareDevice& device : machine.inventory.devices) {
      if (device.kind != kind) continue;
      any_hardware = true;
      lines.push_back({rank, kind, device.vendor, device.name, device.vendor_id, device.device_id, eps});
    }
    if (!any_hardware && rank) lines.push_back({rank, kind, "", "", 0, 0, eps});
  }
  return lines;
}

std::vector<std::string> DeviceNameList(const std::vector<DeviceKind>& devices) {
  std::vector<std::string> names;
  for (DeviceKind device : devices) names.emplace_back(DeviceName(device));
  return names;
}

}  // namespace

ordered_json MachineReportJson(const Machine& machine, MachineReportSections sections) {
  ordered_json report;
  report["schema_version"] = kMachineReportSchemaVersion;
  report["ort_version"] = machine.inventory.ort_version;
  if (sections.devices) {
    ordered_json devices = ordered_json::array();
    for (const DeviceLine& line : DeviceLines(machine)) {
      ordered_json entry;
      entry["rank"] = line.rank ? ordered_json(*line.rank) : ordered_json(nullptr);
      entry["type"] = DeviceName(line.kind);
      entry["vendor"] = line.vendor;
      entry["name"] = line.name;
      entry["vendor_id"] = line.vendor_id;
      entry["device_id"] = line.device_id;
      entry["execution_providers"] = line.eps;
      devices.push_back(std::move(entry));
    }
    report["devices"] = std::move(devices);
  }
  if (sections.execution_providers) {
    ordered_json eps = ordered_json::array();
    for (const EpStatus& status : machine.inventory.eps) {
      const EpRow* row = machine.catalog.Find(status.name);
      ordered_json entry;
      entry["name"] = status.name;
      entry["alias"] = row ? ordered_json(row->Alias()) : ordered_json(nullptr);
      entry["devices"] = DeviceNameList(status.devices);
      entry["usable"] = status.usable;
      entry["reason"] = status.usable ? ordered_json(nullptr) : ordered_json(status.reason);
      entry["plugin"] = status.library.has_value();
      entry["library"] = status.library ? ordered_json(status.library->string()) : ordered_json(nullptr);
      entry["source"] = EpSourceName(status.source);
      entry["ep_context"] = row != nullptr && row->ep_context;
      entry["in_catalog"] = row != nullptr;
      eps.push_back(std::move(entry));
    }
    report["execution_providers"] = std::move(eps);
  }
  return report;
}

std::string MachineReportText(const Machine& machine, MachineReportSections sections) {
  std::string out = "ONNX Runtime " + machine.inventory.ort_version + "\n";
  if (sections.devices) {
    TextTable table({"RANK", "DEVICE", "VENDOR", "NAME", "EPS"});
    for (const DeviceLine& line : DeviceLines(machine)) {
      std::vector<std::string> aliases;
      for (const std::string& ep : line.eps) aliases.push_back(machine.catalog.Find(ep)->Alias());
      table.AddRow({line.rank ? std::to_string(*line.rank) : "-", std::string(DeviceName(line.kind)),
                    line.vendor.empty() ? "-" : line.vendor, line.name.empty() ? "-" : line.name,
                    aliases.empty() ? "-" : Join(aliases, ", ")});
    }
    out += "\nDevices (rank 1 is what --device auto picks)\n" + table.Render();
  }
  if (sections.execution_providers) {
    TextTable table({"EP", "ALIAS", "DEVICES", "USABLE", "EPCONTEXT", "NOTE"});
    for (const EpStatus& status : machine.inventory.eps) {
      const EpRow* row = machine.catalog.Find(status.name);
      std::string note = status.usable ? "" : status.reason;
      if (status.library) note = "plugin " + status.library->string() + (note.empty() ? "" : "; " + note);
      const std::vector<std::string> devices = DeviceNameList(status.devices);
      table.AddRow({status.name, row ? row->Alias() : "-", devices.empty() ? "-" : Join(devices, ","),
                    status.usable ? "yes" : "no", row != nullptr && row->ep_context ? "yes" : "no", note});
    }
    out += "\nExecution providers\n" + table.Render();
  }
  return out;
}

}  // namespace modelkit::device
