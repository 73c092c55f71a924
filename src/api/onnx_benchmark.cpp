#include "modelkit/api/onnx_benchmark.h"

#include "machine_impl.h"
#include "modelkit/base/host_info.h"
#include "modelkit/device/device_request.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/onnx_benchmark.h"
#include "modelkit/report/onnx_report.h"
#include "modelkit/version.h"

namespace modelkit {

OnnxBenchmarkResult RunOnnxBenchmark(const OnnxBenchmarkOptions& options, Machine& machine) {
  report::OnnxPerfOptions run;
  run.model = options.model;
  run.device = device::DeviceRequest::Parse(options.device);
  run.ep = options.ep;
  run.ep_options = options.ep_options;
  run.iterations = options.iterations;
  run.warmup = options.warmup;
  run.batch_size = options.batch_size;
  run.intra_op_threads = options.intra_op_threads;

  report::ReportContext context{
      options.model.string(), kVersion,       kGitCommit, report::UtcTimestamp(), ort::RuntimeVersion(),
      ProcessCommandLine(),   ReadHostState()};
  const report::OnnxPerfResult result = perf::RunOnnxBenchmark(run, machine.impl().access.Discover());

  OnnxBenchmarkResult out;
  out.ep = result.ep_name;
  out.device = result.resolved_device;
  out.samples_ns = result.samples_ns;
  out.load_ms = result.load_ms;
  out.warnings = result.warnings;
  out.report_json = report::OnnxReportJson(run, result, context).dump(2);
  return out;
}

}  // namespace modelkit
