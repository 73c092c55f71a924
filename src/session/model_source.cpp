#include "modelkit/session/model_source.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "modelkit/base/atomic_file.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"
#include "modelkit/bundle/derived_bundle.h"
#include "modelkit/compile/cache_identity.h"

namespace modelkit::session {
namespace {

namespace fs = std::filesystem;

// Kept in the built bundle; hidden, so the derived bundle `_compiled/` never mirrors it.
constexpr const char* kRecordName = ".modelkit_checkpoint.json";
constexpr int kRecordVersion = 1;

bool IsIdPart(std::string_view part) {
  if (part.empty() || part == "." || part == "..") return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

bool HasSafetensors(const fs::path& dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".safetensors" && entry.is_regular_file(ec)) return true;
  }
  return false;
}

// The checkpoint's files a bundle is built from: every visible regular file at its top level (links followed, as
// hub snapshots link into their blob store), by name.
std::vector<std::string> CheckpointFiles(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name.front() != '.' && entry.is_regular_file(ec)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

const char* LayoutName(builder::Layout layout) { return layout == builder::Layout::kFlat ? "flat" : "pipeline"; }

const char* PrecisionName(builder::Precision precision) {
  switch (precision) {
    case builder::Precision::kFp32:
      return "fp32";
    case builder::Precision::kFp16:
      return "fp16";
    case builder::Precision::kInt4:
      return "int4";
  }
  return "fp32";
}

nlohmann::json BuildJson(const CheckpointBuild& build) {
  return {{"layout", LayoutName(build.layout)},
          {"precision", PrecisionName(build.precision)},
          {"window", build.window},
          {"ep", build.ep}};
}

// Why the bundle in `dir` does not serve `checkpoint` built with `build` ("" when it does).
std::string BundleStaleReason(const fs::path& dir, const fs::path& checkpoint, const CheckpointBuild& build) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "genai_config.json", ec) || !fs::is_regular_file(dir / kRecordName, ec)) {
    return "no bundle built yet";
  }
  try {
    const nlohmann::json record = nlohmann::json::parse(ReadTextFile(dir / kRecordName, "checkpoint record"));
    if (record.at("record_version").get<int>() != kRecordVersion) return "the bundle is from another version";
    if (record.at("build") != BuildJson(build)) return "other build options";
    return compile::SourcesStaleReason(compile::SourcesFromJson(record.at("sources")), checkpoint,
                                       CheckpointFiles(checkpoint))
        .value_or("");
  } catch (const std::exception&) {
    return "its record is unreadable";
  }
}

std::string Slug(const fs::path& checkpoint) {
  // Hub snapshots are named by revision; the model's folder (models--ORG--NAME) two levels up says more.
  fs::path named = checkpoint;
  if (checkpoint.parent_path().filename() == "snapshots") named = checkpoint.parent_path().parent_path();
  std::string slug;
  for (const char c : named.filename().string()) {
    slug += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  }
  return slug.empty() ? "checkpoint" : slug.substr(0, 80);
}

}  // namespace

ModelInputKind ClassifyModelInput(const std::string& model) {
  std::error_code ec;
  const fs::path path(model);
  if (fs::is_directory(path, ec)) {
    if (fs::is_regular_file(path / "genai_config.json", ec)) return ModelInputKind::kBundle;
    if (fs::is_regular_file(path / "config.json", ec) && HasSafetensors(path)) return ModelInputKind::kCheckpoint;
    return ModelInputKind::kOther;
  }
  if (fs::exists(path, ec)) return ModelInputKind::kOther;
  const size_t slash = model.find('/');
  if (slash == std::string::npos || model.find('/', slash + 1) != std::string::npos) return ModelInputKind::kOther;
  const std::string_view text(model);
  return IsIdPart(text.substr(0, slash)) && IsIdPart(text.substr(slash + 1)) ? ModelInputKind::kModelId
                                                                             : ModelInputKind::kOther;
}

fs::path HubCacheDir() {
  if (const char* hub = std::getenv("HF_HUB_CACHE"); hub != nullptr && *hub != '\0') return hub;
  if (const char* home = std::getenv("HF_HOME"); home != nullptr && *home != '\0') return fs::path(home) / "hub";
  return UserCacheDir() / "huggingface" / "hub";
}

fs::path FindHubSnapshot(const std::string& model_id) {
  const size_t slash = model_id.find('/');
  const fs::path model_dir =
      HubCacheDir() / ("models--" + model_id.substr(0, slash) + "--" + model_id.substr(slash + 1));
  const fs::path snapshots = model_dir / "snapshots";
  std::error_code ec;
  fs::path chosen;
  if (fs::is_regular_file(model_dir / "refs" / "main", ec)) {
    const std::string revision = Trim(ReadTextFile(model_dir / "refs" / "main", "hub revision", 4096));
    if (IsIdPart(revision) && fs::is_directory(snapshots / revision, ec)) chosen = snapshots / revision;
  }
  if (chosen.empty()) {
    fs::file_time_type newest;
    for (const fs::directory_entry& entry : fs::directory_iterator(snapshots, ec)) {
      if (!entry.is_directory(ec)) continue;
      const fs::file_time_type written = entry.last_write_time(ec);
      if (chosen.empty() || written > newest) {
        chosen = entry.path();
        newest = written;
      }
    }
  }
  if (chosen.empty() || !fs::is_regular_file(chosen / "config.json", ec) || !HasSafetensors(chosen)) {
    throw UsageError("model id '" + model_id + "' is not in the local Hugging Face hub cache (looked for a snapshot " +
                     "with config.json and .safetensors files in " + snapshots.string() +
                     "; set HF_HOME or HF_HUB_CACHE if it is elsewhere); download it first, e.g. with "
                     "'huggingface-cli download " +
                     model_id + "', or give -m a checkpoint directory or a bundle");
  }
  return chosen;
}

fs::path BundleCacheDir() {
  if (const char* dir = std::getenv("MODELKIT_BUNDLE_CACHE"); dir != nullptr && *dir != '\0') return dir;
  return UserCacheDir() / "modelkit" / "bundles";
}

CheckpointBundle EnsureCheckpointBundle(const fs::path& checkpoint_dir, const CheckpointBuild& build, bool rebuild,
                                        const fs::path& cache_root,
                                        const std::function<void(const std::string&)>& note) {
  std::error_code ec;
  const fs::path checkpoint = fs::canonical(checkpoint_dir, ec);
  if (ec) throw UsageError("cannot read the checkpoint '" + checkpoint_dir.string() + "': " + ec.message());
  fs::create_directories(cache_root, ec);
  if (ec) throw RuntimeError("cannot create the bundle cache '" + cache_root.string() + "': " + ec.message());
  const std::string key = compile::HashText(checkpoint.string() + "\n" + BuildJson(build).dump()).substr(0, 16);
  CheckpointBundle result;
  result.dir = cache_root / (Slug(checkpoint) + "-" + key);

  const bundle::BundleLock lock(cache_root);  // one build at a time; a run waiting here then reuses it
  const std::string stale = rebuild ? "--rebuild" : BundleStaleReason(result.dir, checkpoint, build);
  if (stale.empty()) return result;
  result.built = true;
  result.why = stale;
  if (note) note("building a bundle from " + checkpoint_dir.string() + " (" + stale + ") into " + result.dir.string());
  // Identify the sources before building: a file that changes while the build reads it is then stale next time.
  std::vector<compile::SourceIdentity> sources;
  for (const std::string& name : CheckpointFiles(checkpoint)) {
    sources.push_back(compile::IdentifySource(checkpoint, name));
  }
  builder::BuildOptions options;
  options.output_dir = result.dir;
  options.overwrite = true;
  options.checkpoint_dir = checkpoint;
  options.layout = build.layout;
  options.precision = build.precision;
  options.window = build.window;
  options.ep = build.ep;
  builder::BuildBundle(options);
  const nlohmann::json record = {{"record_version", kRecordVersion},
                                 {"checkpoint", checkpoint.string()},
                                 {"build", BuildJson(build)},
                                 {"sources", compile::SourcesToJson(sources)}};
  WriteFileAtomically(result.dir / kRecordName, record.dump(2) + "\n", /*overwrite=*/true);
  return result;
}

}  // namespace modelkit::session
