// `modelkit compile`: an ONNX model -> an EPContext model for an EPContext-capable EP.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "ep_flags.h"
#include "flag_checks.h"
#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"
#include "modelkit/compile/epcontext_compile.h"
#include "modelkit/compile/isolated_compile.h"

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
  double timeout_s = std::chrono::duration<double>(compile::CompilerCommand{}.timeout).count();
  bool in_process = false;  // the isolated child itself (compile::kInProcessFlag)
  EpLibraryFlags ep_flags;
};

void PrintSummary(const compile::EpContextCompileOptions& request, const CompileCommandOptions& options,
                  const std::vector<fs::path>& written, double seconds) {
  std::cout << "Input:   " << request.source.string() << "\n"
            << "Device:  " << options.device.Name() << " (" << device::DeviceName(request.ep.device) << ") / "
            << request.ep.ep->name << "\n";
  for (const fs::path& file : written) std::cout << "Output:  " << file.string() << "\n";
  if (seconds < 0) {
    std::cout << "Success! Model compiled (the compiler then crashed: see the warning)\n";
    return;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", seconds);
  std::cout << "Success! Model compiled in " << text << " s\n";
}

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
  if (options.in_process) {
    const compile::EpContextCompileResult result = compile::CompileToEpContext(request);
    PrintSummary(request, options, result.written, result.seconds);
    return 0;
  }
  // The EP's compiler runs in a child: if it aborts, crashes at exit or hangs, this process still reports it.
  compile::CompilerCommand compiler;
  std::error_code ec;
  compiler.program = fs::read_symlink("/proc/self/exe", ec);
  compiler.extra_args = options.ep_flags.ForwardedArgs();
  compiler.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::llround(options.timeout_s * 1000.0)));
  const compile::IsolatedCompileResult result = compile::CompileToEpContextInChild(request, compiler);
  for (const std::string& warning : result.warnings) std::cerr << "warning: " << warning << "\n";
  if (result.salvaged) {
    PrintSummary(request, options, {request.output}, -1);
  } else {
    std::cout << result.report;
  }
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
  command->add_option("--compile-timeout", options->timeout_s, "Seconds the EP's compiler may take")
      ->check(FiniteNumber(0, kMaxCompileTimeoutSeconds, /*min_exclusive=*/true))
      ->capture_default_str();
  command->add_flag(compile::kInProcessFlag, options->in_process, "Compile in this process (no isolating child)")
      ->group("");
  options->ep_flags.Bind(*command);
  command->callback([options, &run] { run = [options] { return RunCompile(*options); }; });
}

}  // namespace modelkit::app
