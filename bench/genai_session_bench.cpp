// The GenAI session's costs, side by side in one run, with their targets:
//   1. the EP override + derived bundle preparation added to load, for a 4-stage pipeline bundle (<= 30 ms);
//   2. load with a warm EPContext compile cache vs load that compiles (sim NPU compile_delay_ms), >= 3x faster;
//   3. the perf harness's own time per generated token outside model compute, as a fraction of TPOT on a
//      0.6B-shaped int4 bundle (<= 2%).
// Bundles are random-weight bundles with the real Qwen3 tokenizer, built by the modelkit binary in a temporary
// directory. It prints figures; it asserts nothing.
//
// Usage: modelkit_genai_session_bench [new_tokens=32] [skip-0.6b]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelkit/base/temp_dir.h"
#include "modelkit/device/plugin_libraries.h"
#include "modelkit/perf/genai_benchmark.h"
#include "modelkit/session/genai_session.h"

namespace {

namespace fs = std::filesystem;
using modelkit::session::GenaiSession;
using modelkit::session::GenaiSessionOptions;
using modelkit::session::PluginMachineAccess;

const fs::path kCatalog = MODELKIT_SIM_NPU_CATALOG;

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

void Build(const fs::path& out, const std::string& dims, const std::string& extra) {
  const std::string command = std::string(MODELKIT_BINARY) + " build --random --arch qwen3 " + dims + " --tokenizer " +
                              MODELKIT_QWEN3_TOKENIZER_DIR + " " + extra + " -o " + out.string() +
                              " --overwrite > /dev/null";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "building %s failed: %s\n", out.c_str(), command.c_str());
    std::exit(1);
  }
}

void SetStageOptions(const fs::path& bundle, const nlohmann::ordered_json& options) {
  nlohmann::ordered_json config;
  std::ifstream(bundle / "genai_config.json") >> config;
  for (auto& entry : config["model"]["decoder"]["pipeline"]) {
    for (auto& [name, stage] : entry.items()) {
      if (name == "ctx" || name == "iter") {
        stage["session_options"]["provider_options"] = nlohmann::ordered_json::array();
        stage["session_options"]["provider_options"].push_back({{"simnpu", options}});
      }
    }
  }
  std::ofstream(bundle / "genai_config.json") << config.dump(2);
}

GenaiSessionOptions Options(const fs::path& bundle, const std::string& ep, bool compile) {
  GenaiSessionOptions options;
  options.bundle_dir = bundle;
  options.ep = ep;
  options.compile = compile;
  options.compiler.program = MODELKIT_BINARY;
  options.compiler.extra_args = {"--ep-catalog", kCatalog.string()};
  return options;
}

// bundle_prepare and total load of one fresh session, in ms.
std::pair<double, double> LoadOnce(const GenaiSessionOptions& options) {
  PluginMachineAccess machine(modelkit::device::LoadPluginCatalogFile(kCatalog));
  GenaiSession session(options, machine);
  session.Load();
  return {Ms(session.load_timings().bundle_prepare_ns), Ms(session.load_timings().total_ns)};
}

}  // namespace

int main(int argc, char** argv) {
  const int new_tokens = argc > 1 ? std::atoi(argv[1]) : 32;
  const bool skip_big = argc > 2 && std::string(argv[2]) == "skip-0.6b";
  const std::optional<modelkit::ScopedTempDir> temp = modelkit::ScopedTempDir::Create("/tmp", "modelkit-genai-bench-");
  if (!temp) return 1;
  const fs::path dir = temp->path();

  // 1. Preparation cost on a 4-stage pipeline bundle.
  const fs::path pipeline = dir / "pipeline";
  Build(pipeline, "--hidden-size 256 --layers 4 --heads 4 --kv-heads 2 --intermediate-size 768",
        "--layout pipeline --ep simnpu --precision int4 --context-length 512");
  std::vector<double> none, fresh, warm;
  for (int i = 0; i < 5; ++i) {
    none.push_back(LoadOnce(Options(pipeline, "", false)).first);
    fs::remove_all(pipeline / "_compiled");
    fresh.push_back(LoadOnce(Options(pipeline, "cpu", false)).first);
    warm.push_back(LoadOnce(Options(pipeline, "cpu", false)).first);
  }
  std::printf("override + derived bundle, 4-stage bundle (median of 5):\n");
  std::printf("  preparation without override   %8.2f ms\n", Median(none));
  std::printf("  --ep cpu, writing _compiled/    %8.2f ms  (+%.2f ms; target <= 30 ms)\n", Median(fresh),
              Median(fresh) - Median(none));
  std::printf("  --ep cpu, _compiled/ current    %8.2f ms  (+%.2f ms)\n", Median(warm), Median(warm) - Median(none));

  // 2. Warm compile cache vs compiling.
  SetStageOptions(pipeline, {{"compile_delay_ms", "1000"}});
  std::vector<double> cold_load, warm_load;
  for (int i = 0; i < 3; ++i) {
    fs::remove_all(pipeline / "_compiled");
    cold_load.push_back(LoadOnce(Options(pipeline, "", true)).second);
    warm_load.push_back(LoadOnce(Options(pipeline, "", true)).second);
  }
  std::printf("EPContext compile cache (ctx+iter on the sim NPU, compile_delay_ms 1000; median of 3):\n");
  std::printf("  load compiling %8.1f ms | load from warm cache %8.1f ms | ratio %.1fx (target >= 3x)\n",
              Median(cold_load), Median(warm_load), Median(cold_load) / Median(warm_load));

  // 3. Harness time per generated token outside model compute.
  if (!skip_big) {
    const fs::path big = dir / "qwen3-0.6b-int4";
    Build(big, "--hidden-size 1024 --layers 28 --heads 16 --kv-heads 8 --head-dim 128 --intermediate-size 3072",
          "--precision int4 --context-length 1024");
    PluginMachineAccess machine(modelkit::device::LoadPluginCatalogFile(kCatalog));
    GenaiSession session(Options(big, "", false), machine);
    modelkit::perf::GenaiPerfOptions run;
    run.max_new_tokens = new_tokens;
    run.iterations = 3;
    run.warmup = 1;
    run.ignore_eos = true;
    const modelkit::perf::GenaiPerfResult result = modelkit::perf::RunGenaiBenchmark(session, run);
    int64_t decode_ns = 0, inside_ns = 0, steps = 0;
    for (const auto& request : result.requests) {
      if (request.warmup) continue;
      for (const int64_t ns : request.decode_ns) decode_ns += ns;
      for (const auto& stage : request.stages) inside_ns += stage.token_ns;
      steps += static_cast<int64_t>(request.decode_ns.size());
    }
    const double tpot = Ms(decode_ns) / static_cast<double>(std::max<int64_t>(steps, 1));
    const double outside = Ms(decode_ns - inside_ns) / static_cast<double>(std::max<int64_t>(steps, 1));
    std::printf("perf harness on a 0.6B-shaped int4 bundle (%d new tokens x 3 timed requests):\n", new_tokens);
    std::printf("  TPOT %.3f ms | outside model compute %.4f ms per token = %.2f%% of TPOT (target <= 2%%)\n", tpot,
                outside, 100.0 * outside / tpot);
  }
  return 0;
}
