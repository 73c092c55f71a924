// What `-m` of `perf` and `generate` may name besides a genai bundle: a Hugging Face checkpoint directory
// (config.json + *.safetensors [+ tokenizer files]) or a model id ("Qwen/Qwen3-0.6B") found offline in the local
// Hugging Face hub cache. Either is built once with modelkit's own builder into modelkit's bundle cache
// (`<user cache>/modelkit/bundles/`), keyed by where the checkpoint is and the build options, and reused while the
// checkpoint's files are unchanged (size+mtime, then content hash, as the compile cache judges its sources); a
// changed file, or `rebuild`, builds it again. Builds are atomic and serialised by a lock on the bundle cache.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "modelkit/builder/bundle_builder.h"

namespace modelkit::session {

enum class ModelInputKind {
  kBundle,      // a directory holding genai_config.json
  kCheckpoint,  // a directory holding config.json and at least one .safetensors file
  kModelId,     // not an existing path, spelled ORG/NAME
  kOther,       // anything else (an .onnx file, a missing path): the caller's own rules and errors apply
};

ModelInputKind ClassifyModelInput(const std::string& model);

// The hub cache root: $HF_HUB_CACHE, else $HF_HOME/hub, else <user cache>/huggingface/hub.
std::filesystem::path HubCacheDir();

// The snapshot directory of `model_id` in the hub cache: the revision refs/main names, else the only (or the most
// recently modified) snapshot. Throws UsageError saying where it looked and how to get the files when there is none.
std::filesystem::path FindHubSnapshot(const std::string& model_id);

// The build options that shape a bundle built from a checkpoint (the rest are the builder's defaults).
struct CheckpointBuild {
  builder::Layout layout = builder::Layout::kFlat;
  builder::Precision precision = builder::Precision::kFp32;
  int64_t window = 0;  // > 0: the static windowed NPU layout (pipeline)
  std::string ep;      // pipeline layouts: the provider of the ctx/iter stages ("" = CPU)
};

struct CheckpointBundle {
  std::filesystem::path dir;  // the bundle in modelkit's bundle cache
  bool built = false;         // false: reused
  std::string why;            // why it was built ("" when reused)
};

// The bundle for `checkpoint_dir` built with `build`: reused when fresh, else built (`note` is told before a
// build starts, with the reason). `cache_root` is where bundles are kept (BundleCacheDir() by default).
CheckpointBundle EnsureCheckpointBundle(const std::filesystem::path& checkpoint_dir, const CheckpointBuild& build,
                                        bool rebuild, const std::filesystem::path& cache_root,
                                        const std::function<void(const std::string&)>& note);

// <user cache>/modelkit/bundles, or $MODELKIT_BUNDLE_CACHE when set.
std::filesystem::path BundleCacheDir();

}  // namespace modelkit::session
