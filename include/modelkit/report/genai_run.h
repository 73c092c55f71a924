// What a genai benchmark run was asked to do and what it measured (raw steady-clock nanoseconds): the records the
// genai report is made from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "modelkit/device/device_request.h"
#include "modelkit/report/placement.h"

namespace modelkit::report {

inline constexpr const char* kDefaultGenaiPrompt = "Explain the theory of relativity in simple terms.";

// The options of a genai benchmark; the defaults are the documented defaults (`perf --help` shows them).
struct GenaiPerfOptions {
  std::string prompt = kDefaultGenaiPrompt;
  std::vector<int32_t> prompt_ids;  // non-empty: the prompt as token ids, fed as they are (no template, no tokenizer)
  std::string prompt_source = "default";  // where the prompt came from: "default", "text", "file" or "ids"
  std::optional<bool> apply_template;     // nullopt: apply the bundle's chat template when it has one
  int64_t max_new_tokens = 128;
  int iterations = 10;
  int warmup = 2;
  bool memory = true;
  bool ignore_eos = false;  // generate exactly max_new_tokens (within the context) in every request
};

// Time spent inside one pipeline stage's ORT Run calls during one request. A flat bundle has one stage,
// "decoder". Prompt runs process the prompt (prefill); token runs produce generated tokens.
struct GenaiStageTime {
  std::string name;
  int64_t prompt_ns = 0;
  int64_t token_ns = 0;
  int64_t prompt_runs = 0;
  int64_t token_runs = 0;
};

// One generation request, warm-up or timed, as measured. Durations are steady-clock nanoseconds.
struct GenaiRequestSample {
  bool warmup = false;
  int index = 0;  // position within its kind (warm-up or timed)
  int64_t prompt_tokens = 0;
  int64_t generated_tokens = 0;  // including the first token
  bool context_full = false;     // generation stopped at the end of the model's context
  int64_t template_ns = 0;
  int64_t tokenization_ns = 0;
  int64_t generator_create_ns = 0;
  int64_t prefill_ns = 0;
  int64_t first_token_ns = 0;
  std::vector<int64_t> decode_ns;  // one per generated token after the first
  int64_t sequence_fetch_ns = 0;
  int64_t detokenization_ns = 0;
  std::vector<GenaiStageTime> stages;
};

// Durations of the one-time load, in nanoseconds; 0 for a phase that did not run.
struct GenaiLoadSample {
  int64_t session_load_ns = 0;  // the benchmark's outer clock around the whole load
  int64_t ep_registration_ns = 0;
  int64_t bundle_prepare_ns = 0;
  int64_t native_load_ns = 0;
  int64_t config_create_ns = 0;
  int64_t model_create_ns = 0;
  int64_t tokenizer_create_ns = 0;
  std::vector<std::pair<std::string, int64_t>> stage_session_ns;  // session creation per pipeline stage
};

// The threads a pipeline stage's (or the flat decoder's) session runs its kernels on.
struct StageThreading {
  std::string stage;
  int intra_op_threads = 0;  // 0: ORT's own choice
  bool spinning = true;      // idle intra-op threads spin between runs
  bool shared_pool = false;  // the threads are the process's pool shared by the pipeline's stages, not the stage's own
};

// Process memory checkpoints in MiB; nullopt for a checkpoint that was not measured.
struct GenaiMemorySample {
  std::optional<double> rss_baseline_mb;
  std::optional<double> rss_after_load_mb;
  std::optional<double> rss_after_inference_mb;
  std::optional<double> rss_peak_mb;  // VmHWM: the high-water mark over the whole process lifetime
};

// What was asked for and what actually ran, filled by the benchmark from the session it ran. The model id comes
// from ReportContext::model_id.
struct GenaiBenchmarkInfo {
  GenaiPerfOptions options;        // as run
  std::string bundle_dir;          // the bundle as given
  std::string running_model_path;  // the directory actually loaded (the derived bundle when one was written)
  device::DeviceRequest device = device::DeviceRequest::Config();  // as requested
  device::EffectiveEp effective_ep;
  std::optional<std::string> effective_device;  // nullopt when unknown
  bool compile = false;
  double compile_timeout_s = 0;
  std::vector<std::string> compiled_stages;  // stages that ran from a compiled EPContext artifact
  // Stages whose graph was rewritten at load to compute the prompt's logits for its last position only.
  std::vector<std::string> last_position_logits_stages;
  // Stages whose int4 MatMulNBits nodes ran on modelkit's own CPU kernel (unless the bundle opted out).
  std::vector<std::string> int4_cpu_kernel_stages;
  // Stages whose fp32 MatMul nodes ran on modelkit's own CPU kernel.
  std::vector<std::string> fp32_cpu_kernel_stages;
  // Stages whose GroupQueryAttention decode steps ran on modelkit's own CPU kernel.
  std::vector<std::string> attention_cpu_kernel_stages;
  bool monitor = false;
  bool template_applied = false;
  std::optional<int64_t> context_length;    // nullopt when the bundle does not say
  std::optional<int64_t> window_size;       // the windowed layout's prompt window (sliding_window), else nullopt
  std::vector<SessionPlacement> placement;  // per stage in load order, where ORT could say
  std::vector<StageThreading> threading;    // per stage in load order
  bool fail_on_fallback = false;
  std::vector<std::string> warnings;  // everything the session warned about, in order
};

}  // namespace modelkit::report
