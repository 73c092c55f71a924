// The genai benchmark report: winml-cli's schema version 2 plus modelkit's `tool` and `host`
// blocks, the peak RSS, per-stage session creation times and a per-pipeline-stage time breakdown. Pure logic:
// it takes raw nanosecond samples (no clocks, no ORT) and the console text is rendered from the same JSON, so
// both always show the same numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/report/genai_run.h"
#include "modelkit/report/report_blocks.h"

namespace modelkit::report {

// One request's block of `requests[]` (every span in ms with 3 decimals, rates with 2, the raw ns in
// `durations_ns`) and the `load` block: also what `generate -f json` reports, so both use the same names.
nlohmann::ordered_json GenaiRequestJson(const GenaiRequestSample& request);
nlohmann::ordered_json GenaiLoadJson(const GenaiLoadSample& load);

// The report as JSON, in winml-cli's key order. Durations are milliseconds with 3 decimals, per-request token rates
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

// A sweep over prompt and generation lengths (`perf --prompt-tokens 128,512 --gen-tokens 32,128`), as llama-bench
// runs one: each cell a short benchmark of a synthetic prompt of exactly that many tokens, generating exactly that
// many, with one warm-up request.
struct GenaiSweepCell {
  int64_t prompt_tokens = 0;
  int64_t gen_tokens = 0;
  std::vector<GenaiRequestSample> requests;  // warm-up first
};

// The sweep report: the run's blocks as GenaiReportJson makes them, with benchmark_info.sweep {prompt_tokens[],
// gen_tokens[]} and, instead of `requests` and `aggregate`, `sweep[]`: per cell {prompt_tokens, gen_tokens,
// pp_tokens_per_second and tg_tokens_per_second (the mean prefill and steady-state decode rates of its timed
// requests), ttft_ms (mean), requests[], aggregate}.
nlohmann::ordered_json GenaiSweepJson(const GenaiBenchmarkInfo& info, const GenaiLoadSample& load,
                                      const std::vector<GenaiSweepCell>& cells,
                                      const std::optional<GenaiMemorySample>& memory, const ReportContext& context);

// Whether `report` is a sweep report.
bool IsSweepReport(const nlohmann::ordered_json& report);

// The sweep as text: the run's header lines and a table with a row per cell.
std::string GenaiSweepText(const nlohmann::ordered_json& report);

}  // namespace modelkit::report
