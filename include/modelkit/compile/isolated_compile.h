// `modelkit compile` run in a throw-away child process. An EP's compiler can abort, crash while the process unloads
// it, or hang; run in-process, that takes the command down with a signal and no `error:` line. The child is modelkit
// itself (`compile ... --in-process`), so the parent stays clean and turns every ending into one clear outcome.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/compile/epcontext_compile.h"
#include "modelkit/compile/stage_compile.h"

namespace modelkit::compile {

struct IsolatedCompileResult {
  std::string report;                 // the child's standard output (its summary), empty for a salvaged compile
  std::vector<std::string> warnings;  // the child's `warning:` lines (prefix removed), and the salvage notice
  bool salvaged = false;              // the compiler crashed after writing a complete EPContext model, which is kept
};

// Checks the request as CompileToEpContext does (same errors), then runs `compiler.program compile -m SRC -o OUT
// --ep ALIAS -d DEVICE [--embed|--no-embed] [--overwrite] [--ep-options K=V]... extra_args... --in-process`, killed
// after `compiler.timeout`. A child that fails rethrows its `error:` line with its exit code; one that crashes or
// times out is a RuntimeError naming the EP, the signal or the limit, and leaves nothing behind, except that an
// output the crashed child wrote completely (a new file holding an EPContext node: the child writes atomically) is
// kept with a warning, as a driver that crashes while unloading still compiled the model.
IsolatedCompileResult CompileToEpContextInChild(const EpContextCompileOptions& options,
                                                const CompilerCommand& compiler);

// The argument that makes `modelkit compile` compile in its own process (what the child is given).
inline constexpr const char* kInProcessFlag = "--in-process";

// What a `modelkit compile --in-process` child is asked to do.
struct ChildCompileRequest {
  std::filesystem::path source;
  std::filesystem::path output;
  std::string ep;                     // an alias `--ep` accepts
  std::optional<std::string> device;  // -d; absent: the child resolves the EP alone
  bool embed = true;
  bool overwrite = false;
  std::map<std::string, std::string> ep_options;
};

// `compiler.program compile -m SRC -o OUT --ep EP [-d DEVICE] --embed|--no-embed [--overwrite] [--ep-options K=V]...
// compiler.extra_args... --in-process`: the one command line both compile paths (a model, a bundle's stages) give
// their child.
std::vector<std::string> ChildCompileArgv(const CompilerCommand& compiler, const ChildCompileRequest& request);

}  // namespace modelkit::compile
