// Build choices shared by `build` and by `perf`/`generate`, which build a bundle themselves when -m names a
// Hugging Face checkpoint directory or a hub model id (session/model_source.h).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "modelkit/builder/bundle_builder.h"

namespace modelkit::app {

// The provider key written into the pipeline's hardware stages: the catalog's alias for a known EP (any spelling),
// nothing for CPU, and an unknown name as given (onnxruntime-genai tries it as a registered plugin EP).
std::string PipelineEpKey(const std::string& ep);

// "fp32", "fp16" or "int4" (already checked by the flag).
builder::Precision ParsePrecision(const std::string& text);

// How perf/generate build a checkpoint or model id given as -m (the builder's defaults otherwise).
struct CheckpointFlags {
  std::string layout = "flat";
  std::string precision = "fp32";
  int64_t window = 0;
  bool rebuild = false;

  void Bind(CLI::App& command);
};

// The bundle directory `model` (-m) stands for: itself when it is a bundle or none of the inputs below (the
// caller's checks then report it); for a checkpoint directory or a hub model id, its bundle in modelkit's bundle
// cache, built first when missing or stale (a "note:" on stderr unless `quiet`). Pipeline layouts place their
// ctx/iter stages on `ep` (--ep) when it names a hardware EP. Build flags typed for a bundle are a UsageError.
std::string ResolveGenaiModel(const std::string& model, const CheckpointFlags& flags, const CLI::App& command,
                              const std::string& ep, bool quiet);

}  // namespace modelkit::app
