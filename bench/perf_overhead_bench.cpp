// Side-by-side: does `modelkit perf` report what the model costs, and nothing of its own?
//
// For each model, in one process, alternating rounds of
//   raw:      a minimal ORT C++ loop (session.Run with input values, outputs allocated by ORT each call), timed
//             per call with steady_clock;
//   modelkit: modelkit::perf::RunOnnxBenchmark (the harness behind `modelkit perf`) on the same model and shapes;
// and prints modelkit's reported p50 over the raw loop's p50 (targets: <= 1.01 on the PP-OCR models, <= 1.05 on
// the microsecond MatMul model). Then the CLI's start-up cost: wall time of a whole `modelkit perf` process with
// one iteration and no warm-up, against the in-process p50 of that model.
//
// Usage: modelkit_perf_overhead_bench [rounds=5] [iterations=200]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "modelkit/device/machine.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/host_tensor.h"
#include "modelkit/perf/onnx_benchmark.h"
#include "modelkit/report/stats.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using modelkit::perf::HostTensor;

struct BenchModel {
  std::string label;
  fs::path path;
  std::vector<int64_t> shape;  // of the single float input
};

std::vector<double> RawLoop(const BenchModel& model, int warmup, int iterations) {
  Ort::SessionOptions options;
  Ort::Session session(modelkit::ort::SharedEnv(), model.path.c_str(), options);
  Ort::AllocatorWithDefaultOptions allocator;
  const std::string input_name = session.GetInputNameAllocated(0, allocator).get();
  std::vector<std::string> output_names;
  for (size_t i = 0; i < session.GetOutputCount(); ++i) {
    output_names.push_back(session.GetOutputNameAllocated(i, allocator).get());
  }
  modelkit::report::TensorSpec spec{input_name, modelkit::report::ElementType::kFloat, {}, true};
  HostTensor input = modelkit::perf::MakeSyntheticTensor(spec, model.shape, 1);
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  Ort::Value value = Ort::Value::CreateTensor(memory, reinterpret_cast<float*>(input.data.data()), input.ElementCount(),
                                              input.shape.data(), input.shape.size());
  const char* in_names[] = {input_name.c_str()};
  std::vector<const char*> out_names;
  for (const std::string& name : output_names) out_names.push_back(name.c_str());
  std::vector<double> samples;
  for (int i = 0; i < warmup + iterations; ++i) {
    const auto start = Clock::now();
    auto outputs = session.Run(Ort::RunOptions{nullptr}, in_names, &value, 1, out_names.data(), out_names.size());
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (i >= warmup) samples.push_back(ms);
  }
  return samples;
}

std::vector<double> ModelkitLoop(const BenchModel& model, const modelkit::device::Machine& machine, int warmup,
                                 int iterations, const fs::path& shape_config) {
  modelkit::report::OnnxPerfOptions options;
  options.model = model.path;
  options.device = modelkit::device::DeviceRequest::Of(modelkit::device::DeviceKind::kCpu);
  options.warmup = warmup;
  options.iterations = iterations;
  options.shape_config = shape_config;
  options.memory = false;
  std::vector<double> samples_ms;
  for (int64_t ns : modelkit::perf::RunOnnxBenchmark(options, machine).samples_ns)
    samples_ms.push_back(static_cast<double>(ns) / 1e6);
  return samples_ms;
}

double WallSeconds(const std::vector<std::string>& argv) {
  std::fflush(stdout);  // or the child would print the parent's buffered lines again
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    freopen("/dev/null", "w", stdout);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  const fs::path ocr = MODELKIT_OCR_MODELS_DIR;
  const fs::path models = MODELKIT_TEST_MODELS_DIR;
  const std::vector<BenchModel> bench_models = {
      {"PP-OCR cls [1,3,48,192]", ocr / "cls.onnx", {1, 3, 48, 192}},
      {"MatMul+Add [1,64]x[64,32]", models / "matmul_add.onnx", {1, 64}},
      {"PP-OCR det [1,3,224,224]", ocr / "det.onnx", {1, 3, 224, 224}},
  };
  modelkit::device::OrtDiscovery discovery({});
  const modelkit::device::Machine machine = modelkit::device::LoadMachine(discovery, {});
  const fs::path config_dir = fs::temp_directory_path() / ("modelkit-bench-" + std::to_string(getpid()));
  fs::create_directories(config_dir);

  std::printf("%-28s %12s %12s %8s\n", "model", "raw p50 ms", "modelkit p50", "ratio");
  for (const BenchModel& model : bench_models) {
    const fs::path config = config_dir / "shape.json";
    FILE* file = std::fopen(config.c_str(), "w");
    std::fprintf(file, "{\"%s\": [", model.path.stem() == "matmul_add" ? "a" : "x");
    for (size_t i = 0; i < model.shape.size(); ++i)
      std::fprintf(file, "%s%lld", i ? ", " : "", static_cast<long long>(model.shape[i]));
    std::fprintf(file, "]}");
    std::fclose(file);
    const int model_iterations = model.path.stem() == "det" ? iterations / 4 : iterations;
    std::vector<double> raw;
    std::vector<double> kit;
    for (int round = 0; round < rounds; ++round) {  // alternate so drift hits both sides alike
      for (double sample : RawLoop(model, 10, model_iterations)) raw.push_back(sample);
      for (double sample : ModelkitLoop(model, machine, 10, model_iterations, config)) kit.push_back(sample);
    }
    const double raw_p50 = *modelkit::report::Percentile(raw, 50);
    const double kit_p50 = *modelkit::report::Percentile(kit, 50);
    std::printf("%-28s %12.4f %12.4f %8.3f\n", model.label.c_str(), raw_p50, kit_p50, kit_p50 / raw_p50);
  }

  const std::string binary = MODELKIT_BINARY;
  std::vector<double> walls;
  for (int i = 0; i < 5; ++i) {
    walls.push_back(
        WallSeconds({binary, "perf", "-m", (models / "matmul_add.onnx").string(), "--iterations", "1", "--warmup", "0",
                     "--no-memory", "-q", "-o", (config_dir / "r.json").string(), "--overwrite"}));
  }
  std::printf("CLI start-up to first iteration (whole process, 1 iteration): p50 %.1f ms over %zu runs\n",
              *modelkit::report::Percentile(walls, 50) * 1000.0, walls.size());
  fs::remove_all(config_dir);
  return 0;
}
