// `modelkit completion bash`: the shell completion script; and the hidden `modelkit write-docs`, which the build runs
// to write the man pages and the completion script. Both come from the app's own definitions (cli_docs.h).
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli_docs.h"
#include "commands.h"
#include "ep_flags.h"
#include "modelkit/base/atomic_file.h"
#include "modelkit/session/machine_access.h"
#include "modelkit/version.h"

namespace modelkit::app {
namespace {

// --ep takes every alias of the catalog modelkit starts with: the built-in rows and the default plugin catalog's.
std::vector<std::string> EpNames() {
  session::PluginMachineAccess machine(EpLibraryFlags().Plugins());
  return machine.Catalog().AllAliases();
}

// What -d/--device takes (device::DeviceRequest::Parse).
const std::vector<std::string> kDeviceNames = {"config", "auto", "npu", "gpu", "cpu"};

}  // namespace

void RegisterCompletionCommands(CLI::App& app, CommandRunner& run) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand(
      "completion", "Print the shell completion script (e.g. source <(modelkit completion bash) in ~/.bashrc)");
  completion->add_option("shell", *shell, "The shell")->required()->check(CLI::IsMember({"bash"}));
  completion->callback([shell, &app, &run] {
    run = [&app] {
      std::cout << BashCompletion(app, EpNames(), kDeviceNames);
      return 0;
    };
  });

  struct DocsFlags {
    std::string man_dir;
    std::string bash_completion;
  };
  auto docs = std::make_shared<DocsFlags>();
  CLI::App* write = app.add_subcommand("write-docs", "Write the man pages and the bash completion script");
  write->group("");  // for the build, not for users
  write->add_option("--man-dir", docs->man_dir, "Directory to write a NAME.1 page per command into")->required();
  write->add_option("--bash-completion", docs->bash_completion, "File to write the bash completion into")->required();
  write->callback([docs, &app, &run] {
    run = [docs, &app] {
      std::filesystem::create_directories(docs->man_dir);
      const std::vector<CommandPage> pages = DocumentedCommands(app);
      for (const CommandPage& page : pages) {
        WriteFileAtomically(std::filesystem::path(docs->man_dir) / (ManPageName(page) + ".1"),
                            ManPage(page, pages, kVersion), /*overwrite=*/true);
      }
      const std::filesystem::path script(docs->bash_completion);
      std::filesystem::create_directories(script.parent_path());
      WriteFileAtomically(script, BashCompletion(app, EpNames(), kDeviceNames), /*overwrite=*/true);
      return 0;
    };
  });
}

}  // namespace modelkit::app
