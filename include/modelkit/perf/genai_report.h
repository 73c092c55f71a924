// The genai benchmark report: upstream winml-cli's schema version 2 (U§3.5) plus modelkit's `tool` and `host`
// blocks, the peak RSS, per-stage session creation times and a per-pipeline-stage time breakdown. Pure logic:
// it takes raw nanosecond samples (no clocks, no ORT) and the console text is rendered from the same JSON, so
// both always show the same numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/perf/report_blocks.h"

namespace modelkit::perf {

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

// Process memory checkpoints in MiB; nullopt for a checkpoint that was not measured.
struct GenaiMemorySample {
  std::optional<double> rss_baseline_mb;
  std::optional<double> rss_after_load_mb;
  std::optional<double> rss_after_inference_mb;
  std::optional<double> rss_peak_mb;  // VmHWM: the high-water mark over the whole process lifetime
};

// What was asked for and what actually ran. The model id comes from ReportContext::model_id.
struct GenaiBenchmarkInfo {
  std::string bundle_dir;          // the bundle as given
  std::string running_model_path;  // the directory actually loaded (the derived bundle when one was written)
  std::string ep_label;            // effective EP alias, or "config" when the bundle's own routing ran
  std::string device;              // as requested: "config", "auto", "cpu", "gpu", "npu"
  std::optional<std::string> effective_device;  // nullopt when unknown
  bool compile = false;
  double compile_timeout_s = 300;
  std::vector<std::string> compiled_stages;  // stages that ran from a compiled EPContext artifact
  bool monitor = false;
  int iterations = 10;
  int warmup = 2;
  int64_t max_new_tokens = 128;
  bool apply_template = true;
  std::string prompt;
  std::optional<int64_t> context_length;  // nullopt when the bundle does not say
};

// The report as JSON, upstream key order. Durations are milliseconds with 3 decimals, per-request token rates
// and memory 2 decimals, aggregate stats blocks {mean, std (population), min, max, p50, p90, p95, p99} 3
// decimals over the timed requests only (nearest-rank percentiles). Rates and TPOT over a zero duration or no
// decode tokens are 0. Values that were not measured are null, never -1: stats with no timed request,
// benchmark_info.prompt_tokens/generated_tokens (taken from the first timed request) with none, cold start
// with no request at all. Cold start is session load plus the first warm-up request (the first timed one
// when there was no warm-up). `memory` is present only when `memory` is given. A stage missing from a timed
// request counts as 0 ms in that request.
nlohmann::ordered_json GenaiReportJson(const GenaiBenchmarkInfo& info, const GenaiLoadSample& load,
                                       const std::vector<GenaiRequestSample>& requests,
                                       const std::optional<GenaiMemorySample>& memory, const ReportContext& context);

// Human-readable report (run summary, startup, TTFT table, prefill/decode rates, per-stage table, memory) from a
// report made by GenaiReportJson. Throws nlohmann::json exceptions when a required key is missing.
std::string GenaiReportText(const nlohmann::ordered_json& report);

}  // namespace modelkit::perf
