// `modelkit compile`: an ONNX model -> an EPContext model for an EPContext-capable EP.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "ep_flags.h"
#include "flag_checks.h"
#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"
#include "modelkit/compile/epcontext_compile.h"

namespace modelkit::app {
namespace {

namespace fs = std::filesystem;

struct CompileCommandOptions {
  std::string model;
  std::string output;
  device::DeviceRequest device = device::DeviceRequest::Auto();
  std::string ep;
  std::vector<std::string> ep_options;
  bool embed = false;
  bool overwrite = false;
  EpLibraryFlags ep_flags;
};

int RunCompile(const CompileCommandOptions& options) {
  compile::EpContextCompileOptions request;
  request.source = options.model;
  request.output = options.output.empty()
                       ? request.source.parent_path() / (request.source.stem().string() + "_ctx.onnx")
                       : fs::path(options.output);
  request.embed = options.embed;
  request.overwrite = options.overwrite;
  request.ep_options = ParseEpOptions(options.ep_options);
  const device::Machine machine = options.ep_flags.LoadRealMachine();
  const device::Resolver resolver = machine.MakeResolver();
  const device::EpRow* requested = options.ep.empty() ? nullptr : &machine.catalog.Normalize(options.ep);
  request.ep = resolver.ResolveOnnxEp(options.device, requested);
  if (!request.ep.ep->ep_context) {
    std::vector<std::string> capable;
    for (const device::EpRow* row : resolver.AvailableEps()) {
      if (row->ep_context) capable.push_back(row->Alias());
    }
    throw UsageError("EP '" + request.ep.ep->name + "' does not support EPContext compilation; EPContext-capable EPs " +
                     "here: " + (capable.empty() ? std::string("none") : Join(capable, ", ")) + " (--ep)");
  }
  const compile::EpContextCompileResult result = compile::CompileToEpContext(request);
  std::cout << "Input:   " << request.source.string() << "\n"
            << "Device:  " << options.device.Name() << " (" << device::DeviceName(request.ep.device) << ") / "
            << request.ep.ep->name << "\n";
  for (const fs::path& file : result.written) std::cout << "Output:  " << file.string() << "\n";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", result.seconds);
  std::cout << "Success! Model compiled in " << seconds << " s\n";
  return 0;
}

}  // namespace

void RegisterCompileCommand(CLI::App& app, CommandRunner& run) {
  auto options = std::make_shared<CompileCommandOptions>();
  CLI::App* command = app.add_subcommand("compile", "Compile an ONNX model into an EPContext model for an NPU/GPU EP");
  command->add_option("-m,--model", options->model, "ONNX model file (.onnx)")->required();
  command->add_option("-o,--output", options->output, "EPContext model to write (default <model>_ctx.onnx)")
      ->check(NonEmpty());
  command->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  AddDeviceOption(*command, options->device, "auto, npu, gpu or cpu");
  command->add_option("--ep", options->ep, "EPContext-capable EP (alias or full name)")->check(NonEmpty());
  command->add_option("--ep-options", options->ep_options, "KEY=VALUE forwarded to the EP (repeatable)");
  command->add_flag("--embed,!--no-embed", options->embed,
                    "Embed the compiled context in the model (default: a .bin file beside it)");
  options->ep_flags.Bind(*command);
  command->callback([options, &run] { run = [options] { return RunCompile(*options); }; });
}

}  // namespace modelkit::app
