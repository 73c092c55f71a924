#include "modelkit/compile/isolated_compile.h"

#include <sys/stat.h>

#include <optional>

#include "compile_process.h"
#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"
#include "modelkit/base/temp_dir.h"
#include "modelkit/device/device_kind.h"

namespace modelkit::compile {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kErrorPrefix = "error: ";
constexpr std::string_view kWarningPrefix = "warning: ";

// The file behind `path` (device and inode), to tell a file the child wrote from one that was there before.
std::optional<std::pair<dev_t, ino_t>> FileIdentity(const fs::path& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  return std::make_pair(info.st_dev, info.st_ino);
}

std::vector<std::string> WarningsOf(const std::string& stderr_text) {
  std::vector<std::string> warnings;
  for (const std::string& line : Split(stderr_text, '\n')) {
    if (line.rfind(kWarningPrefix, 0) == 0) warnings.push_back(line.substr(kWarningPrefix.size()));
  }
  return warnings;
}

// The exit codes a modelkit child reports for its own errors; anything else is a runtime failure.
ExitCode ChildExitCode(int code) {
  switch (code) {
    case static_cast<int>(ExitCode::kUsage):
      return ExitCode::kUsage;
    case static_cast<int>(ExitCode::kInvalidModel):
      return ExitCode::kInvalidModel;
    case static_cast<int>(ExitCode::kInferenceFailed):
      return ExitCode::kInferenceFailed;
    default:
      return ExitCode::kRuntimeFailure;
  }
}

// The child's last line that is not its own `error:` line, e.g. the message a crashing driver printed.
std::string LastWords(const std::string& stderr_text) {
  const std::vector<std::string> lines = Split(Trim(stderr_text), '\n');
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    const std::string text = Trim(*line);
    if (!text.empty()) return text.size() > 300 ? text.substr(0, 300) + "..." : text;
  }
  return "";
}

}  // namespace

std::vector<std::string> ChildCompileArgv(const CompilerCommand& compiler, const ChildCompileRequest& request) {
  std::vector<std::string> argv = {compiler.program.string(), "compile", "-m",      request.source.string(), "-o",
                                   request.output.string(),   "--ep",    request.ep};
  if (request.device) {
    argv.push_back("-d");
    argv.push_back(*request.device);
  }
  argv.push_back(request.embed ? "--embed" : "--no-embed");
  if (request.overwrite) argv.push_back("--overwrite");
  for (const auto& [key, value] : request.ep_options) {
    argv.push_back("--ep-options");
    argv.push_back(key + "=" + value);
  }
  argv.insert(argv.end(), compiler.extra_args.begin(), compiler.extra_args.end());
  argv.push_back(kInProcessFlag);
  return argv;
}

IsolatedCompileResult CompileToEpContextInChild(const EpContextCompileOptions& options,
                                                const CompilerCommand& compiler) {
  CheckEpContextCompileRequest(options);
  const fs::path out_dir = options.output.has_parent_path() ? options.output.parent_path() : fs::path(".");
  MadeFolders made_folders(out_dir);  // made here, so that they go again when the child crashes or hangs
  const std::optional<std::pair<dev_t, ino_t>> before = FileIdentity(options.output);
  const ChildCompileRequest request{
      options.source, options.output,    options.ep.ep->Alias(), std::string(device::DeviceName(options.ep.device)),
      options.embed,  options.overwrite, options.ep_options};
  const ChildResult child = RunChildWithTimeout(ChildCompileArgv(compiler, request), compiler.timeout);
  IsolatedCompileResult result;
  result.warnings = WarningsOf(child.stderr_text);
  if (child.outcome == ChildOutcome::kSucceeded) {
    made_folders.Keep();
    result.report = child.stdout_text;
    return result;
  }
  RemoveAbandonedCompileFolders(out_dir);  // the child's staging folder, now that it has ended
  const std::string ep = options.ep.ep->Alias();
  if (child.outcome == ChildOutcome::kFailed && child.error_line.rfind(kErrorPrefix, 0) == 0) {
    throw Error(ChildExitCode(child.exit_code), child.error_line.substr(kErrorPrefix.size()));
  }
  const std::optional<std::pair<dev_t, ino_t>> after = FileIdentity(options.output);
  if (child.outcome != ChildOutcome::kTimedOut && after && after != before && ContainsEpContextNode(options.output)) {
    made_folders.Keep();
    result.salvaged = true;
    result.warnings.push_back("the " + ep + " compiler " + DescribeOutcome(child, compiler.timeout) +
                              " after writing a complete EPContext model; keeping '" + options.output.string() + "'");
    return result;
  }
  const std::string last_words = child.outcome == ChildOutcome::kCrashed ? LastWords(child.stderr_text) : "";
  if (child.outcome == ChildOutcome::kTimedOut) {
    throw RuntimeError("compiling '" + options.source.string() + "' for " + ep + " " +
                       DescribeOutcome(child, compiler.timeout) +
                       " and was stopped; nothing was written (raise the limit with --compile-timeout)");
  }
  throw RuntimeError("the " + ep + " compiler " + DescribeOutcome(child, compiler.timeout) + " while compiling '" +
                     options.source.string() + "'; nothing was written" +
                     (last_words.empty() ? std::string() : " (its last message: " + last_words + ")"));
}

}  // namespace modelkit::compile
