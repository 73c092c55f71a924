// `modelkit sys`: the devices and execution providers of this machine.
#include <iostream>

#include "commands.h"
#include "ep_flags.h"
#include "modelkit/device/machine_report.h"

namespace modelkit::app {
namespace {

struct SysOptions {
  bool list_device = false;
  bool list_ep = false;
  std::string format = "text";
  EpLibraryFlags ep_flags;
};

int RunSys(const SysOptions& options) {
  const device::Machine machine = options.ep_flags.LoadRealMachine(EpLibraryFlags::BrokenLibraries::kListed);
  device::MachineReportSections sections;
  if (options.list_device || options.list_ep) {
    sections.devices = options.list_device;
    sections.execution_providers = options.list_ep;
  }
  if (options.format == "json") {
    std::cout << device::MachineReportJson(machine, sections).dump(2) << "\n";
  } else {
    std::cout << device::MachineReportText(machine, sections);
  }
  return 0;
}

}  // namespace

void RegisterSysCommand(CLI::App& app, CommandRunner& run) {
  auto options = std::make_shared<SysOptions>();
  CLI::App* command = app.add_subcommand("sys", "Show the devices and execution providers of this machine");
  command->add_flag("--list-device", options->list_device, "Show only the devices");
  command->add_flag("--list-ep", options->list_ep, "Show only the execution providers");
  command->add_option("-f,--format", options->format, "Output format")
      ->transform(CLI::IsMember({"text", "json"}, CLI::ignore_case))
      ->capture_default_str();
  options->ep_flags.Bind(*command);
  command->callback([options, &run] { run = [options] { return RunSys(*options); }; });
}

}  // namespace modelkit::app
