// `modelkit perf --runtime onnx`: benchmark one ONNX model on the resolved EP with a harness that adds nothing
// measurable: inputs made once outside timing, inputs and outputs bound once (IoBinding with preallocated
// outputs), and only the Run call timed.
#pragma once

#include <functional>

#include "modelkit/device/machine.h"
#include "modelkit/report/onnx_run.h"

namespace modelkit::perf {

// The run's options and measurements are the report's records.
using report::OnnxPerfOptions;
using report::OnnxPerfResult;

// Called after each warm-up or timed iteration (done, total; total 0 when time-boxed) for progress display.
using ProgressCallback = std::function<void(int done, int total)>;

// Runs the benchmark. Throws modelkit::Error: UsageError for bad options or an unavailable device/EP,
// Error(kInvalidModel) when ORT cannot parse the model, RuntimeError for load failures, Error(kInferenceFailed)
// when a Run fails after a successful load.
OnnxPerfResult RunOnnxBenchmark(const OnnxPerfOptions& options, const device::Machine& machine,
                                const ProgressCallback& progress = {});

}  // namespace modelkit::perf
