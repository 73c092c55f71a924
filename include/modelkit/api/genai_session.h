// modelkit's public C++ API (docs/library.md): a genai bundle loaded for generation, with an optional EP override, as
// `modelkit generate` runs it (docs/genai-session.md): the override is applied to a derived copy of the bundle's
// config (`<bundle>/_compiled/`), stages can be compiled for the EP and cached, and the original bundle is never
// modified.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modelkit/api/machine.h"

namespace modelkit {

struct GenaiSessionOptions {
  std::filesystem::path bundle;   // the directory holding genai_config.json
  std::string ep;                 // an EP name or alias to run every stage on; empty: the bundle's config decides
  std::string device = "config";  // "config" (the bundle's), "auto", "npu", "gpu" or "cpu"
  // Compile the stages for the EP ahead of time (EPContext), cached in the bundle. The compiler runs as a child
  // process of the modelkit executable installed with the library (PREFIX/bin/modelkit).
  bool compile = false;
};

// Unset fields take the bundle's search settings (genai_config.json, generation_config.json).
struct GenerationRequest {
  std::string prompt;               // text; ignored when prompt_ids is given
  std::vector<int32_t> prompt_ids;  // token ids fed as they are
  bool apply_chat_template = true;  // wrap `prompt` in the bundle's chat template, when it has one
  std::optional<int64_t> max_new_tokens;
  std::optional<bool> do_sample;
  std::optional<double> temperature;
  std::optional<int> top_k;
  std::optional<double> top_p;
  std::optional<uint64_t> seed;
};

struct Generation {
  std::vector<int32_t> prompt_ids;
  std::vector<int32_t> generated_ids;   // including a final end-of-sequence token
  std::string text;                     // generated text, special tokens left out
  std::string stop_reason;              // "eos", "max_new_tokens", "max_length" or "cancelled"
  int64_t time_to_first_token_ns = 0;   // prefill and choosing the first token
  std::vector<int64_t> decode_step_ns;  // each later token
};

class GenaiSession {
 public:
  // Checks the EP name and the bundle directory; loads nothing. Throws modelkit::Error (UsageError) for an unknown
  // EP or device, or a directory without genai_config.json. `machine` must outlive the session.
  GenaiSession(const GenaiSessionOptions& options, Machine& machine);
  ~GenaiSession();
  GenaiSession(GenaiSession&&) noexcept;
  GenaiSession& operator=(GenaiSession&&) noexcept;

  // Applies the override, compiles when asked and loads the model and tokenizer; a second call does nothing. Throws
  // modelkit::Error: UsageError for an EP this machine cannot run, Error(kInvalidModel) for a bad bundle.
  void Load();

  // Generates, loading first when Load() has not run. `on_text`, when set, receives the text as it becomes final;
  // returning false from it stops the generation after the current token ("cancelled"). Throws UsageError for an empty
  // prompt or one longer than the model's context, Error(kInferenceFailed) when ONNX Runtime fails.
  Generation Generate(const GenerationRequest& request, const std::function<bool(std::string_view text)>& on_text = {});

  // After Load(): the EP the stages really run on (its alias, or "config" when the bundle's config was kept), the
  // device, and messages for the user (an override that did not take effect, a failed compile).
  std::string effective_ep() const;
  std::string effective_device() const;
  std::vector<std::string> warnings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace modelkit
