#include "modelkit/compile/stage_compile.h"

#include <map>
#include <mutex>

#include "compile_process.h"
#include "modelkit/base/atomic_file.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/phase.h"
#include "modelkit/compile/cache_identity.h"
#include "modelkit/compile/compile_cache.h"
#include "modelkit/compile/epcontext_compile.h"
#include "modelkit/compile/isolated_compile.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::compile {
namespace {

namespace fs = std::filesystem;

// The source file and its external-data sidecar when it has one.
std::vector<std::string> SourceFiles(const fs::path& bundle_dir, const std::string& source) {
  std::vector<std::string> names = {source};
  std::error_code ec;
  if (fs::is_regular_file(bundle_dir / (source + ".data"), ec)) names.push_back(source + ".data");
  return names;
}

// Why the artifact in the previous _compiled/ cannot serve `identity`, or "" when it is fresh.
std::string StaleReasonFor(const fs::path& old_artifact, const CompileIdentity& identity, const fs::path& bundle_dir,
                           const std::vector<std::string>& sources) {
  std::error_code ec;
  const fs::path record_path = old_artifact.string() + kRecordSuffix;
  if (!fs::is_regular_file(old_artifact, ec)) return "no compiled artifact yet";
  if (!fs::is_regular_file(record_path, ec)) return "the artifact has no cache record";
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(ReadTextFile(record_path, "compile cache record"));
  } catch (const std::exception&) {
    return "the cache record is unreadable";
  }
  const std::optional<CompileIdentity> recorded = FromJson(record);
  if (!recorded) return "the cache record is from another version";
  return StaleReason(*recorded, bundle_dir, sources, identity.ep, identity.provider_options, identity.ort_version,
                     identity.ep_version)
      .value_or("");
}

void PatchStageFilename(bundle::Json& config, const std::string& stage, const std::string& filename) {
  bundle::ForEachPipelineStage(config, [&](const std::string& name, bundle::Json& entry) {
    if (name == stage) entry["filename"] = filename;
  });
}

// The salvage rule (as winml-cli applies it), where it applies to our compiler: a compiler that crashes or fails after
// its output exists (NPU drivers are known to crash while unloading) still produced a usable model. `modelkit compile`
// writes its output atomically (temporary file, then rename), and `output` lies in this run's fresh staging folder,
// so a file there is whole and was written by this compile; it must hold an EPContext node. Its context blobs are
// embedded (--embed), so there are no external `.bin` files to check. A compiler killed for its timeout is never
// salvaged: it did not finish.
bool Salvageable(const ChildResult& child, const fs::path& output) {
  if (child.outcome != ChildOutcome::kCrashed && child.outcome != ChildOutcome::kFailed) return false;
  std::error_code ec;
  return fs::is_regular_file(output, ec) && fs::file_size(output, ec) > 0 && !ec && ContainsEpContextNode(output);
}

}  // namespace

std::string ArtifactName(const std::string& stage, const device::EpRow& ep,
                         const std::map<std::string, std::string>& provider_options) {
  if (provider_options.empty()) return stage + "_" + ep.Alias() + "_ctx.onnx";
  std::string canonical;  // the map is ordered by key, so equal option sets give equal text
  for (const auto& [key, value] : provider_options) canonical += key + '\0' + value + '\0';
  return stage + "_" + ep.Alias() + "-" + HashText(canonical).substr(0, 8) + "_ctx.onnx";
}

const char* OutcomeName(StageCompileOutcome outcome) {
  switch (outcome) {
    case StageCompileOutcome::kReused:
      return "reused";
    case StageCompileOutcome::kCompiled:
      return "compiled";
    case StageCompileOutcome::kSalvaged:
      return "salvaged";
    case StageCompileOutcome::kAlreadyCompiled:
      return "already compiled";
    case StageCompileOutcome::kFailed:
      return "failed";
  }
  return "failed";
}

std::vector<StageCompileRequest> CompilableStages(const bundle::Json& config, const device::EpCatalog& catalog) {
  std::vector<StageCompileRequest> requests;
  bundle::ForEachPipelineStage(config, [&](const std::string& name, const bundle::Json& stage) {
    const bundle::Json* providers = bundle::ProviderOptionsOf(stage);
    if (providers == nullptr || providers->empty()) return;
    const bundle::Json& first = providers->front();
    if (!first.is_object() || first.size() != 1) return;
    const device::EpRow* row = catalog.Find(first.begin().key());
    if (row == nullptr || !row->ep_context) return;
    StageCompileRequest request;
    request.stage = name;
    request.source = stage.contains("filename") && stage.at("filename").is_string()
                         ? stage.at("filename").get<std::string>()
                         : name + ".onnx";
    request.ep = row;
    for (const auto& [key, value] : first.begin().value().items()) {
      request.provider_options[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
    requests.push_back(std::move(request));
  });
  return requests;
}

std::vector<StageCompileReport> PrepareCompiledStages(const fs::path& bundle_dir, const fs::path& staging_dir,
                                                      const std::vector<StageCompileRequest>& requests,
                                                      const CompilerCommand& compiler, bundle::Json& config,
                                                      bundle::DerivedBundleContents& contents,
                                                      std::vector<std::string>& warnings) {
  std::vector<StageCompileReport> reports;
  const fs::path previous = bundle_dir / bundle::kDerivedDirName;
  for (const StageCompileRequest& request : requests) {
    StageCompileReport report;
    report.stage = request.stage;
    report.artifact = ArtifactName(request.stage, *request.ep, request.provider_options);
    const fs::path source = bundle_dir / request.source;
    std::error_code ec;
    if (!fs::is_regular_file(source, ec)) {
      // The loader names the missing file; there is nothing to compile.
      report.detail = "source " + request.source + " is missing";
      reports.push_back(report);
      continue;
    }
    if (ContainsEpContextNode(source)) {
      report.outcome = StageCompileOutcome::kAlreadyCompiled;
      reports.push_back(report);
      continue;
    }
    const std::vector<std::string> sources = SourceFiles(bundle_dir, request.source);
    CompileIdentity identity;
    identity.stage = request.stage;
    for (const std::string& name : sources) identity.sources.push_back(IdentifySource(bundle_dir, name));
    identity.ep = request.ep->name;
    identity.provider_options = request.provider_options;
    identity.ort_version = ort::RuntimeVersion();
    identity.ep_version = EpLibraryVersion(*request.ep);

    const std::string record_name = report.artifact + kRecordSuffix;
    const std::string stale = StaleReasonFor(previous / report.artifact, identity, bundle_dir, sources);
    if (stale.empty()) {
      report.outcome = StageCompileOutcome::kReused;
      MarkUsed(previous / record_name);
      contents.artifacts[report.artifact] = previous / report.artifact;
      contents.artifacts[record_name] = previous / record_name;
    } else {
      report.detail = stale;
      const fs::path output = staging_dir / report.artifact;
      const ScopedPhase phase("compiling stage " + request.stage + " for " + request.ep->Alias());
      const ChildResult child = RunChildWithTimeout(
          ChildCompileArgv(compiler, {source, output, request.ep->Alias(), std::nullopt, /*embed=*/true,
                                      /*overwrite=*/true, request.provider_options}),
          compiler.timeout);
      report.seconds = child.seconds;
      const bool succeeded = child.outcome == ChildOutcome::kSucceeded && fs::is_regular_file(output, ec);
      const bool salvaged = !succeeded && Salvageable(child, output);
      if (succeeded || salvaged) {
        report.outcome = succeeded ? StageCompileOutcome::kCompiled : StageCompileOutcome::kSalvaged;
        if (salvaged) {
          report.detail = DescribeOutcome(child, compiler.timeout);
          warnings.push_back("the compiler of stage '" + request.stage + "' for " + request.ep->Alias() + " " +
                             report.detail + " after writing a complete EPContext model; using that model");
        }
        WriteFileAtomically(staging_dir / record_name, ToJson(identity).dump(2) + "\n", /*overwrite=*/true);
        contents.artifacts[report.artifact] = output;
        contents.artifacts[record_name] = staging_dir / record_name;
      } else {
        // Nothing of a failed compile may survive: a later run must not trust a partial artifact.
        fs::remove(output, ec);
        RemoveAbandonedCompileFolders(staging_dir);
        // A failure's description holds the compiler's error line already; a crash or timeout adds it.
        report.detail = DescribeOutcome(child, compiler.timeout) +
                        (child.error_line.empty() || child.outcome == ChildOutcome::kFailed ? std::string()
                                                                                            : ": " + child.error_line);
        warnings.push_back("compiling stage '" + request.stage + "' for " + request.ep->Alias() + " " + report.detail +
                           "; the stage runs uncompiled");
        reports.push_back(report);
        continue;
      }
    }
    for (const std::string& name : sources) contents.skipped_sources.insert(name);
    PatchStageFilename(config, request.stage, report.artifact);
    reports.push_back(report);
  }
  return reports;
}

std::string EpLibraryVersion(const device::EpRow& row) {
  if (!row.plugin_library) return "";
  static std::mutex mutex;
  static std::map<std::string, std::string> hashes;
  const std::lock_guard<std::mutex> lock(mutex);
  const std::string key = row.plugin_library->string();
  auto found = hashes.find(key);
  if (found == hashes.end()) found = hashes.emplace(key, "xxh3:" + HashFile(*row.plugin_library)).first;
  return found->second;
}

}  // namespace modelkit::compile
