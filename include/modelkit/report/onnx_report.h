// The ONNX benchmark report: winml-cli's schema version 2 plus modelkit's `tool` and `host`
// blocks. The console text is rendered from the same JSON, so both always show the same numbers.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "modelkit/report/onnx_run.h"
#include "modelkit/report/report_blocks.h"

namespace modelkit::report {

// Latency numbers have 3 decimals, throughput and memory 2. Unmeasured values are null, never -1.
nlohmann::ordered_json OnnxReportJson(const OnnxPerfOptions& options, const OnnxPerfResult& result,
                                      const ReportContext& context);

// Human-readable report (Latency table, Throughput, Memory) from a report made by OnnxReportJson.
std::string OnnxReportText(const nlohmann::ordered_json& report);

// A sweep over batch sizes (`perf --batch-size 1,4,8`): one run per size. The report is the first run's, with
// benchmark_info.sweep {batch_sizes[]} and, instead of the latency, throughput and raw-sample blocks, `sweep[]`: per
// run {batch_size, effective_batch_size, latency_ms, latency_ns, throughput, raw_samples_ns}. `options` are those of
// the first run; each result's batch is `batch_sizes[i]`.
nlohmann::ordered_json OnnxSweepJson(const OnnxPerfOptions& options, const std::vector<int64_t>& batch_sizes,
                                     const std::vector<OnnxPerfResult>& results, const ReportContext& context);

// The sweep as text: the model and device lines and a row per batch size.
std::string OnnxSweepText(const nlohmann::ordered_json& report);

// ~/.cache/modelkit/perf/<model-slug>/<YYYYMMDD-HHMMSS>.json ($XDG_CACHE_HOME wins over ~/.cache).
std::filesystem::path DefaultReportPath(const std::filesystem::path& model, const std::string& timestamp_utc);

// Current UTC time as ISO-8601 with seconds ("2026-12-03T08:15:00Z").
std::string UtcTimestamp();

}  // namespace modelkit::report
