// modelkit: run and benchmark ONNX models and genai bundles on ONNX Runtime.
// main() registers the subcommands, parses, runs the chosen one, and is the one place errors are printed.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "modelkit/base/error.h"
#include "modelkit/ort/runtime.h"
#include "version.h"

namespace {

int PrintError(const std::string& message, modelkit::ExitCode code) {
  std::cerr << "error: " << message << "\n";
  return static_cast<int>(code);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"modelkit: run and benchmark ONNX models and genai bundles on ONNX Runtime", "modelkit"};
  app.set_version_flag("--version",
                       std::string("modelkit ") + modelkit::app::kVersion + " (" + modelkit::app::kGitCommit + ")");
  app.require_subcommand(1);
  modelkit::app::CommandRunner run;
  modelkit::app::RegisterSysCommand(app, run);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (message.empty()) message = "invalid command line";
    return PrintError(message + ". Run 'modelkit --help'.", modelkit::ExitCode::kUsage);
  } catch (const modelkit::Error& e) {
    return PrintError(e.what(), e.code());
  }

  try {
    return run();
  } catch (const modelkit::Error& e) {
    return PrintError(e.what(), e.code());
  } catch (const Ort::Exception& e) {
    return PrintError(std::string("ONNX Runtime: ") + e.what(), modelkit::ExitCode::kRuntimeFailure);
  } catch (const std::exception& e) {
    return PrintError(std::string("unexpected failure: ") + e.what(), modelkit::ExitCode::kRuntimeFailure);
  }
}
