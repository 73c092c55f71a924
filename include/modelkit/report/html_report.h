// Perf reports as one self-contained HTML page (`perf -f html`, `modelkit report`): no network, no scripts, no
// external fonts, inline SVG and a little CSS, so it opens offline and as a mail attachment. Per run: its context
// (model or bundle, device and EP per stage, placement, host, command line, warnings) and charts: for an ONNX model
// the latency histogram and CDF with p50/p90/p99 marked; for a bundle the TTFT and decode-rate distributions, each
// request's per-token decode timeline and the per-stage time split into prompt and token. Several reports give one
// page that also compares them (the `modelkit compare` table, and one CDF or timeline with a line per run). Every
// chart has a title, axes with units and a table with the same numbers.
#pragma once

#include <string>
#include <vector>

#include "modelkit/report/compare.h"

namespace modelkit::report {

// Throws UsageError naming a report that lacks what a chart needs.
std::string HtmlReport(const std::vector<NamedReport>& reports);

}  // namespace modelkit::report
