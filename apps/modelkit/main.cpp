// modelkit: run and benchmark ONNX models and genai bundles on ONNX Runtime.
// main() registers the subcommands, parses, runs the chosen one, and is the one place errors are printed.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>

#include "commands.h"
#include "ep_flags.h"
#include "modelkit/base/error.h"
#include "modelkit/base/huge_pages.h"
#include "modelkit/base/strings.h"
#include "modelkit/ort/ort_error.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/version.h"
#include "terminal_status.h"

namespace {

int PrintError(const std::string& message, modelkit::ExitCode code) {
  modelkit::app::ClearStatusLine();
  std::cerr << "error: " << message << "\n";
  return static_cast<int>(code);
}

// A command's result is its output: output that could not all be written (a full disk, a closed file) turns a
// success into exit 1, instead of a truncated report with exit 0.
int CheckedOutput(int code) {
  errno = 0;  // a failed flush (it retries what an earlier write could not write) says why
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
  if (!failed || code != 0) return code;
  const std::string reason = errno != 0 ? std::strerror(errno) : "write error";
  return PrintError("cannot write the output to standard output: " + reason, modelkit::ExitCode::kRuntimeFailure);
}

// What CLI11 could not place, said the way a user thinks of it: the first unknown option, with the command's option
// it most likely meant ("unknown option '--iteration' for 'modelkit perf'; did you mean '--iterations'?"), else the
// first unexpected word. `fallback` (CLI11's own message) when there is nothing to name.
std::string UnexpectedArgumentMessage(const CLI::App& command, const std::vector<std::string>& extras,
                                      const std::string& fallback) {
  const std::string where = command.get_parent() == nullptr ? "'modelkit'" : "'modelkit " + command.get_name() + "'";
  for (const std::string& extra : extras) {
    if (extra.size() < 2 || extra[0] != '-') continue;
    const std::string option = extra.substr(0, extra.find('='));
    std::vector<std::string> names;
    for (const CLI::Option* known : command.get_options()) {
      for (const std::string& name : known->get_lnames()) names.push_back("--" + name);
      for (const std::string& name : known->get_snames()) names.push_back("-" + name);
    }
    const std::string match = modelkit::ClosestMatch(option, names);
    return "unknown option '" + option + "' for " + where + (match.empty() ? "" : "; did you mean '" + match + "'?");
  }
  if (!extras.empty()) return "unexpected argument '" + extras.front() + "' for " + where;
  return fallback;
}

// `modelkit --version`: modelkit's version and commit, ONNX Runtime's version and the file it was loaded from, and the
// plugin EP libraries the default catalog (beside the binary) and MODELKIT_EP_CATALOG declare.
std::string VersionText() {
  std::string text = std::string("modelkit ") + modelkit::kVersion + " (commit " + modelkit::kGitCommit + ")";
  text += "\nONNX Runtime " + modelkit::ort::RuntimeVersion() + " (" + modelkit::ort::RuntimeLibraryPath() + ")";
  try {
    const std::vector<modelkit::device::PluginLibrary> plugins = modelkit::app::EpLibraryFlags().Plugins();
    if (plugins.empty()) text += "\nplugin EPs: none";
    for (const modelkit::device::PluginLibrary& plugin : plugins) {
      text += "\nplugin EP " + plugin.registration_name + " (" + plugin.library.string() + ", " + plugin.origin + ")";
    }
  } catch (const modelkit::Error& error) {
    text += "\nplugin EPs: " + std::string(error.what());
  }
  return text;
}

// "permission denied: '/path'" (with the operation) instead of the library's "filesystem error: ...[/path]".
std::string DescribeFilesystemError(const std::filesystem::filesystem_error& e) {
  std::string reason = e.code().message();
  if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  std::string message = reason;
  if (!e.path1().empty()) message += ": '" + e.path1().string() + "'";
  if (!e.path2().empty()) message += " (and '" + e.path2().string() + "')";
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else runs: the restart replaces this process.
  modelkit::RestartWithHugePageMalloc(argv);
  CLI::App app{"modelkit: run and benchmark ONNX models and genai bundles on ONNX Runtime", "modelkit"};
  app.set_version_flag("--version", VersionText, "Print modelkit's version and where ONNX Runtime and the plugins are");
  app.require_subcommand(1);
  modelkit::app::CommandRunner run;
  modelkit::app::RegisterSysCommand(app, run);
  modelkit::app::RegisterPerfCommand(app, run);
  modelkit::app::RegisterCompileCommand(app, run);
  modelkit::app::RegisterTokenizeCommand(app, run);
  modelkit::app::RegisterBuildCommand(app, run);
  modelkit::app::RegisterGenerateCommand(app, run);
  modelkit::app::RegisterCacheCommand(app, run);
  modelkit::app::RegisterCompareCommand(app, run);
  modelkit::app::RegisterReportCommand(app, run);
  modelkit::app::RegisterServeCommand(app, run);
  modelkit::app::RegisterCompletionCommands(app, run);

  // CLI11 would report an unknown first word only as "a subcommand is required"; name it instead.
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
  if (argc > 1 && argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    return PrintError("unknown command '" + std::string(argv[1]) + "'" +
                          modelkit::DidYouMeanThenExpected(argv[1], names) + ": " + modelkit::Join(names, ", ") +
                          ". Run 'modelkit --help'.",
                      modelkit::ExitCode::kUsage);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    const std::vector<CLI::App*> chosen = app.get_subcommands();
    const CLI::App& command = chosen.empty() ? app : *chosen.front();
    const std::string help = chosen.empty() ? "modelkit --help" : "modelkit " + command.get_name() + " --help";
    return PrintError(UnexpectedArgumentMessage(command, app.remaining(true), e.what()) + ". Run '" + help + "'.",
                      modelkit::ExitCode::kUsage);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (message.empty()) message = "invalid command line";
    const std::vector<CLI::App*> chosen = app.get_subcommands();
    const std::string help = chosen.empty() ? "modelkit --help" : "modelkit " + chosen.front()->get_name() + " --help";
    return PrintError(message + ". Run '" + help + "'.", modelkit::ExitCode::kUsage);
  } catch (const modelkit::Error& e) {
    return PrintError(e.what(), e.code());
  }

  // -v (perf, generate) adds what a library said in full below the error line.
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  const CLI::Option* verbose_flag = chosen.empty() ? nullptr : chosen.front()->get_option_no_throw("--verbose");
  const bool verbose = verbose_flag != nullptr && verbose_flag->count() > 0;
  // The status line exists before any phase begins; --quiet (perf, generate) draws nothing on it.
  const CLI::Option* quiet_flag = chosen.empty() ? nullptr : chosen.front()->get_option_no_throw("--quiet");
  modelkit::app::TerminalStatus& status = modelkit::app::TerminalStatus::Get();
  if (quiet_flag != nullptr && quiet_flag->count() > 0) status.Silence();
  const auto print_detail = [&](const std::string& detail) {
    if (verbose && !detail.empty()) std::cerr << "  in full: " << detail << "\n";
  };
  try {
    return CheckedOutput(run());
  } catch (const modelkit::Error& e) {
    const int code = PrintError(e.what(), e.code());
    print_detail(e.detail());
    return code;
  } catch (const Ort::Exception& e) {
    const int code =
        PrintError("ONNX Runtime: " + modelkit::ort::CleanOrtMessage(e.what()), modelkit::ExitCode::kRuntimeFailure);
    print_detail(e.what());
    return code;
  } catch (const std::filesystem::filesystem_error& e) {
    return PrintError(DescribeFilesystemError(e), modelkit::ExitCode::kRuntimeFailure);
  } catch (const std::bad_alloc&) {
    return PrintError(
        "out of memory: this run needs more memory than the machine could give; try a smaller model, "
        "batch, prompt or context",
        modelkit::ExitCode::kRuntimeFailure);
  } catch (const std::exception& e) {
    return PrintError(std::string("unexpected failure: ") + e.what(), modelkit::ExitCode::kRuntimeFailure);
  }
}
