// Compiling a bundle's pipeline stages into its compile cache, kept in the derived bundle `_compiled/`
// (docs/genai-session.md, compile_cache.h): artifacts are named by ArtifactName and carry a cache record
// `<artifact>.meta.json` (compile::CompileIdentity: source content, EP, options, ORT and EP library versions). A fresh
// record is reused without compiling; anything else compiles again, in a child process bounded by a timeout, so a
// hanging, failing or crashing compiler costs only that stage its compiled form: it then runs uncompiled (JIT).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "modelkit/bundle/derived_bundle.h"
#include "modelkit/bundle/genai_config.h"
#include "modelkit/device/ep_catalog.h"

namespace modelkit::compile {

struct StageCompileRequest {
  std::string stage;
  std::string source;  // the stage's bundle-relative ONNX file
  const device::EpRow* ep = nullptr;
  std::map<std::string, std::string> provider_options;  // the stage's options for that EP
};

enum class StageCompileOutcome {
  kReused,           // a fresh artifact from an earlier run
  kCompiled,         // compiled by this run
  kSalvaged,         // the compiler crashed or failed after writing a complete EPContext model, which is used
  kAlreadyCompiled,  // the source is an EPContext model already
  kFailed,           // failed, crashed or timed out without a usable model: the stage runs uncompiled
};

struct StageCompileReport {
  std::string stage;
  std::string artifact;  // `{stage}_{alias}_ctx.onnx`
  StageCompileOutcome outcome = StageCompileOutcome::kFailed;
  std::string detail;  // why it recompiled, or how the compiler failed
  double seconds = 0;  // compile time (0 when reused)
};

// How to run a compiler process: `program compile -m SRC -o OUT --ep ALIAS --embed --overwrite
// [--ep-options K=V]... extra_args...`, killed after `timeout` (per stage).
struct CompilerCommand {
  std::filesystem::path program;        // an absolute path to modelkit
  std::vector<std::string> extra_args;  // e.g. the parent's --ep-library / --ep-catalog flags
  std::chrono::milliseconds timeout{300'000};
};

// The pipeline stages whose first provider (resolved through `catalog`) is an EPContext-capable EP, in order.
// Stages on CPU, on JIT-only EPs, or naming a provider no row knows are not compiled.
std::vector<StageCompileRequest> CompilableStages(const bundle::Json& config, const device::EpCatalog& catalog);

// The artifact name for a stage on an EP with its provider options: `{stage}_{alias}_ctx.onnx` without options,
// `{stage}_{alias}-{8 hex digits of the options' hash}_ctx.onnx` with some, so that every option set that can change
// the artifact has its own cache entry.
std::string ArtifactName(const std::string& stage, const device::EpRow& ep,
                         const std::map<std::string, std::string>& provider_options);

// For each request: a source that is already an EPContext model is kept; a fresh artifact in
// <bundle>/_compiled/ is reused; otherwise the compiler runs in a child, writing into `staging_dir`. Reused and
// compiled artifacts (and their records) are added to `contents.artifacts`, their sources (and `.data` sidecars)
// to `contents.skipped_sources`, and the stage's `filename` in `config` is patched to the artifact. A failure adds a
// warning and leaves the stage's filename as it was. The caller holds the bundle's lock.
std::vector<StageCompileReport> PrepareCompiledStages(const std::filesystem::path& bundle_dir,
                                                      const std::filesystem::path& staging_dir,
                                                      const std::vector<StageCompileRequest>& requests,
                                                      const CompilerCommand& compiler, bundle::Json& config,
                                                      bundle::DerivedBundleContents& contents,
                                                      std::vector<std::string>& warnings);

const char* OutcomeName(StageCompileOutcome outcome);

// A plugin EP's version for the compile cache: the XXH3-128 of its library's content (a rebuilt library is a new
// version even when it reports the same version string), "" for built-in EPs. Hashes each library once per
// process.
std::string EpLibraryVersion(const device::EpRow& row);

}  // namespace modelkit::compile
