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

// The report as JSON, in winml-cli's key order. Durations are milliseconds with 3 decimals, per-request token rates
// and memory 2 decimals, aggregate stats blocks {mean, std (population), min, max, p50, p90, p95, p99} 3
// decimals over the timed requests only (nearest-rank percentiles). Rates and TPOT over a zero duration or no
// decode tokens are 0. Values that were not measured are null, never -1: stats with no timed request,
// benchmark_info.prompt_tokens/generated_tokens (taken from the first timed request) with none, cold start
// with no request at all. Cold start is session load plus the first warm-up request (the first timed one
// when there was no warm-up). `memory` is present only when `memory` is given. A stage missing from a timed
// request counts as 0 ms in that request.
// One request's block of `requests[]` (every span in ms with 3 decimals, rates with 2, the raw ns in
// `durations_ns`) and the `load` block: also what `generate -f json` reports, so both use the same names.
nlohmann::ordered_json GenaiRequestJson(const GenaiRequestSample& request);
nlohmann::ordered_json GenaiLoadJson(const GenaiLoadSample& load);

nlohmann::ordered_json GenaiReportJson(const GenaiBenchmarkInfo& info, const GenaiLoadSample& load,
                                       const std::vector<GenaiRequestSample>& requests,
                                       const std::optional<GenaiMemorySample>& memory, const ReportContext& context);

// Human-readable report (run summary, startup, TTFT table, prefill/decode rates, per-stage table, memory) from a
// report made by GenaiReportJson. Throws nlohmann::json exceptions when a required key is missing.
std::string GenaiReportText(const nlohmann::ordered_json& report);

}  // namespace modelkit::report
