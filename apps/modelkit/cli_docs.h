// Man pages and shell completion made from the command line's own definitions (the CLI11 app that parses and prints
// --help), so neither can drift from what modelkit accepts. `modelkit completion bash` prints the completion script;
// the build writes both into share/ (docs/install.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace modelkit::app {

// A command and the words that reach it: {} is modelkit itself, {"cache", "list"} is `modelkit cache list`.
struct CommandPage {
  std::vector<std::string> path;
  const CLI::App* command = nullptr;
};

// Every documented command, modelkit first, then depth first in registration order; hidden commands (an empty
// group) are left out.
std::vector<CommandPage> DocumentedCommands(const CLI::App& app);

// The man page (roff, section 1) of `page`; `version` is modelkit's version. Its file name: ManPageName(page) + ".1".
std::string ManPage(const CommandPage& page, const std::vector<CommandPage>& all, const std::string& version);
// "modelkit", "modelkit-perf", "modelkit-cache-list".
std::string ManPageName(const CommandPage& page);

// What bash completes: commands and their options, option values from an option's choices, `eps` after --ep,
// `devices` after -d/--device, file names after other options that take a value and for positional arguments.
std::string BashCompletion(const CLI::App& app, const std::vector<std::string>& eps,
                           const std::vector<std::string>& devices);

}  // namespace modelkit::app
