// Subcommand registration. Each cmd_<name>.cpp adds one subcommand to the app and sets `run` when chosen.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>

namespace modelkit::app {

// The largest prompt or text file a command reads (--prompt-file, tokenize --file/--chat): some hundred times any
// model's context, and a bound for inputs that never end (/dev/zero).
inline constexpr size_t kMaxPromptFileBytes = size_t{64} << 20;

// What main() runs after parsing: returns the process exit code.
using CommandRunner = std::function<int()>;

void RegisterSysCommand(CLI::App& app, CommandRunner& run);
void RegisterPerfCommand(CLI::App& app, CommandRunner& run);
void RegisterCompileCommand(CLI::App& app, CommandRunner& run);
void RegisterTokenizeCommand(CLI::App& app, CommandRunner& run);
void RegisterBuildCommand(CLI::App& app, CommandRunner& run);
void RegisterGenerateCommand(CLI::App& app, CommandRunner& run);
void RegisterCacheCommand(CLI::App& app, CommandRunner& run);
void RegisterCompareCommand(CLI::App& app, CommandRunner& run);
void RegisterReportCommand(CLI::App& app, CommandRunner& run);
void RegisterServeCommand(CLI::App& app, CommandRunner& run);
// `completion` and the hidden `man-pages`: registered last, they document every command registered before them.
void RegisterCompletionCommands(CLI::App& app, CommandRunner& run);

}  // namespace modelkit::app
