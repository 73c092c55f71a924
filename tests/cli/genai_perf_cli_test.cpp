// `modelkit perf` and `generate` on genai bundles as users run them: EP/device precedence and the labels reports
// print (the seed's four resolutions), an override that cannot take effect, WebGPU through --device gpu, the
// genai-only input contract, and the compile cache under a killed run and concurrent runs.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "generate/int4_matmul_kernel.h"
#include "modelkit/builder/bundle_builder.h"
#include "support/browser.h"
#include "support/build_fixtures.h"
#include "support/cli.h"
#include "support/lavapipe.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const std::string kCatalog = MODELKIT_SIM_NPU_CATALOG;

class GenaiPerfCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    builder::BuildOptions options;
    options.random = true;
    options.random_spec = TinySpec(builder::Arch::kLlama);
    options.random_spec.vocab_size = 0;  // follow the tokenizer
    options.seed = 11;
    options.context_length = 64;
    options.tokenizer_dir = fs::path(MODELKIT_QWEN3_TOKENIZER_DIR);
    options.output_dir = dir_->path() / "pipeline";
    options.layout = builder::Layout::kPipeline;
    options.ep = "simnpu";
    builder::BuildBundle(options);
    options.output_dir = dir_->path() / "windowed";
    options.window = 16;
    builder::BuildBundle(options);
    options.window = 0;
    options.output_dir = dir_->path() / "flat";
    options.layout = builder::Layout::kFlat;
    options.ep.clear();
    options.precision = builder::Precision::kInt4;
    builder::BuildBundle(options);
  }
  static void TearDownTestSuite() { delete dir_; }

  static fs::path Pipeline() { return dir_->path() / "pipeline"; }
  static fs::path Flat() { return dir_->path() / "flat"; }
  static fs::path Windowed() { return dir_->path() / "windowed"; }

  // `modelkit generate` of a fixed prompt (20 ids: two windows of 16) with `extra` flags; the generated ids.
  static Json GeneratedIds(const fs::path& bundle, const std::vector<std::string>& extra,
                           const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> args = {"generate",
                                     "-m",
                                     bundle.string(),
                                     "--prompt-ids",
                                     "1,17,42,99,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
                                     "--max-new-tokens",
                                     "12",
                                     "--ignore-eos",
                                     "-f",
                                     "json",
                                     "--ep-catalog",
                                     kCatalog};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult result = RunModelkit(args, env);
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return result.exit_code == 0 ? Json::parse(result.stdout_text)["generated_ids"] : Json();
  }

  // A copy of a bundle for tests that write _compiled/.
  static fs::path Copy(const fs::path& bundle, const TempDir& tmp) {
    const fs::path copy = tmp.path() / bundle.filename();
    fs::copy(bundle, copy, fs::copy_options::recursive);
    fs::remove_all(copy / "_compiled");
    return copy;
  }

  // One short perf run; the report from stdout.
  static ProcessResult Perf(const fs::path& bundle, const std::vector<std::string>& extra,
                            const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> args = {
        "perf",
        "-m",
        bundle.string(),
        "--iterations",
        "1",
        "--warmup",
        "0",
        "--max-new-tokens",
        "4",
        "--ignore-eos",
        "--ep-catalog",
        kCatalog,
        "-o",
        (bundle.parent_path() / ("report-" + std::to_string(counter_++) + ".json")).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunModelkit(args, env);
  }

  static Json PerfJson(const fs::path& bundle, std::vector<std::string> extra) {
    extra.insert(extra.end(), {"-f", "json", "-q"});
    const ProcessResult result = Perf(bundle, extra);
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return result.exit_code == 0 ? Json::parse(result.stdout_text) : Json::object();
  }

  static TempDir* dir_;
  static std::atomic<int> counter_;
};

TempDir* GenaiPerfCliTest::dir_ = nullptr;
std::atomic<int> GenaiPerfCliTest::counter_{0};

TEST_F(GenaiPerfCliTest, FourResolutionsReportDeviceAndEp) {
  struct Case {
    std::vector<std::string> flags;
    std::string device, ep, console;
  };
  for (const Case& c :
       std::vector<Case>{{{}, "config", "config", "Device: config -> npu (SimNpu)\n"},
                         {{"--device", "config"}, "config", "config", "Device: config -> npu (SimNpu)\n"},
                         {{"--ep", "cpu"}, "config", "cpu", "Device: config -> cpu (CPU)\n"},
                         {{"--device", "cpu"}, "cpu", "cpu", "Device: cpu (CPU)\n"},
                         {{"--device", "npu"}, "npu", "simnpu", "Device: npu (SimNpu)\n"}}) {
    const Json report = PerfJson(Pipeline(), c.flags);
    const std::string what = ::testing::PrintToString(c.flags);
    EXPECT_EQ(report["schema_version"], 2) << what;
    EXPECT_EQ(report["benchmark_info"]["device"], c.device) << what;
    EXPECT_EQ(report["benchmark_info"]["ep"], c.ep) << what;
    EXPECT_EQ(report["benchmark_info"]["runtime"], "genai") << what;
    EXPECT_EQ(report["requests"].size(), 1u) << what;
    const ProcessResult text = Perf(Pipeline(), c.flags);
    ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
    EXPECT_NE(text.stdout_text.find(c.console), std::string::npos) << what << "\n" << text.stdout_text;
  }
  // The CPU override's report says where it really ran, and which stage computed the last position's logits only.
  EXPECT_EQ(PerfJson(Pipeline(), {"--ep", "cpu"})["benchmark_info"]["effective_device"], "cpu");
  EXPECT_EQ(PerfJson(Pipeline(), {"--ep", "cpu"})["benchmark_info"]["last_position_logits_stages"],
            Json::parse(R"(["lm_head"])"));
  EXPECT_EQ(PerfJson(Pipeline(), {})["benchmark_info"]["effective_device"], "npu");
}

// An int4 bundle reports the stages that ran on modelkit's int4 CPU kernel (where the CPU has AVX-512 VNNI;
// elsewhere none do); the same weights built to opt out (--cpu-int4-kernel ort) report none.
TEST_F(GenaiPerfCliTest, ReportNamesTheStagesOnModelkitsInt4Kernel) {
  builder::BuildOptions options;
  options.random = true;
  options.random_spec = TinySpec(builder::Arch::kLlama);
  options.random_spec.vocab_size = 0;  // follow the tokenizer
  options.context_length = 64;
  options.tokenizer_dir = fs::path(MODELKIT_QWEN3_TOKENIZER_DIR);
  options.output_dir = dir_->path() / "flat-ort-int4-kernel";
  options.precision = builder::Precision::kInt4;
  options.int4_cpu_kernel = false;
  builder::BuildBundle(options);
  const Json expected = generate::Int4KernelSupported() ? Json::parse(R"(["decoder"])") : Json::array();
  EXPECT_EQ(PerfJson(Flat(), {})["benchmark_info"]["int4_cpu_kernel_stages"], expected);
  EXPECT_EQ(PerfJson(options.output_dir, {})["benchmark_info"]["int4_cpu_kernel_stages"], Json::array());
}

TEST_F(GenaiPerfCliTest, ReportHasStagesAndDefaultsToTenTimedTwoWarmupRequests) {
  const ProcessResult result =
      RunModelkit({"perf", "-m", Pipeline().string(), "--max-new-tokens", "3", "-f", "json", "-q", "--ep-catalog",
                   kCatalog, "-o", (Pipeline().parent_path() / "defaults.json").string(), "--overwrite"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const Json report = Json::parse(result.stdout_text);
  EXPECT_EQ(report["benchmark_info"]["iterations"], 10);
  EXPECT_EQ(report["benchmark_info"]["warmup"], 2);
  EXPECT_EQ(report["requests"].size(), 12u);
  EXPECT_EQ(report["aggregate"]["timed_request_count"], 10);
  std::vector<std::string> stages;
  for (const Json& stage : report["requests"][0]["stages"]) stages.push_back(stage["name"]);
  EXPECT_EQ(stages, (std::vector<std::string>{"embeddings", "ctx", "iter", "lm_head"}));
  EXPECT_TRUE(report["memory"].is_object());
}

// Every stage's placement as ORT reports it; a stage whose NPU takes only MatMul (op_allow) is named with what fell
// back, and --fail-on-fallback turns that into exit 4 with no report.
TEST_F(GenaiPerfCliTest, PlacementPerStageAndFallback) {
  const Json full = PerfJson(Pipeline(), {});
  std::vector<std::string> sessions;
  for (const Json& stage : full["placement"]) {
    sessions.push_back(stage["session"]);
    const bool on_npu = stage["session"] == "ctx" || stage["session"] == "iter";
    EXPECT_EQ(stage["requested_ep"], on_npu ? "SimNpuExecutionProvider" : "CPUExecutionProvider") << stage;
    ASSERT_EQ(stage["eps"].size(), 1u) << stage;
    EXPECT_EQ(stage["eps"][0]["ep"], stage["requested_ep"]) << stage;
    EXPECT_EQ(stage["eps"][0]["nodes"], stage["nodes"]) << stage;
  }
  EXPECT_EQ(sessions, (std::vector<std::string>{"embeddings", "ctx", "iter", "lm_head"}));
  EXPECT_EQ(RunWarnings(full["warnings"]), std::vector<std::string>{});

  const TempDir tmp;
  const fs::path bundle = Copy(Pipeline(), tmp);
  Json config = Json::parse(std::ifstream(bundle / "genai_config.json"));
  for (Json& entry : config["model"]["decoder"]["pipeline"]) {
    if (entry.contains("ctx")) {
      entry["ctx"]["session_options"]["provider_options"] = Json::array({{{"simnpu", {{"op_allow", "MatMul"}}}}});
    }
  }
  std::ofstream(bundle / "genai_config.json") << config.dump(1);
  const Json partial = PerfJson(bundle, {});
  const Json& ctx = partial["placement"][1];
  ASSERT_EQ(ctx["session"], "ctx");
  int64_t npu_nodes = 0, cpu_nodes = 0;
  for (const Json& share : ctx["eps"]) {
    if (share["ep"] == "SimNpuExecutionProvider") {
      npu_nodes = share["nodes"];
      std::vector<std::string> ops;
      for (const auto& [op, n] : share["op_types"].items()) ops.push_back(op);
      EXPECT_EQ(ops, std::vector<std::string>{"MatMul"});
    } else {
      EXPECT_EQ(share["ep"], "CPUExecutionProvider");
      cpu_nodes = share["nodes"];
      EXPECT_FALSE(share["op_types"].contains("MatMul"));
    }
  }
  EXPECT_GT(npu_nodes, 0);
  EXPECT_GT(cpu_nodes, 0);
  EXPECT_EQ(npu_nodes + cpu_nodes, ctx["nodes"].get<int64_t>());
  const std::string shortfall = "SimNpuExecutionProvider ran " + std::to_string(npu_nodes) + " of " +
                                ctx["nodes"].dump() + " nodes of ctx; " + std::to_string(cpu_nodes) +
                                " fell back to CPUExecutionProvider";
  const std::vector<std::string> warnings = RunWarnings(partial["warnings"]);
  ASSERT_EQ(warnings.size(), 1u) << partial["warnings"];
  EXPECT_EQ(warnings[0].rfind(shortfall, 0), 0u) << partial["warnings"];
  EXPECT_EQ(partial["placement"][2]["eps"].size(), 1u) << "iter keeps every node on the NPU";

  const ProcessResult text = Perf(bundle, {});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stderr_text.find("warning: " + shortfall), std::string::npos) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("  ctx: CPU " + std::to_string(cpu_nodes) + "/" + ctx["nodes"].dump() +
                                  " nodes, SimNpu " + std::to_string(npu_nodes) + " (MatMul)\n"),
            std::string::npos)
      << text.stdout_text;
  const fs::path strict_report = tmp.path() / "strict.json";
  ExpectErrorLine(RunModelkit({"perf", "-m", bundle.string(), "--iterations", "1", "--warmup", "0", "--max-new-tokens",
                               "2", "--ep-catalog", kCatalog, "--fail-on-fallback", "-o", strict_report.string()}),
                  4, shortfall);
  EXPECT_FALSE(fs::exists(strict_report));
}

// --monitor samples the process while the bundle runs (hw_monitor in the report, as for ONNX models), the report
// file is the one printed, and an existing report is never replaced without --overwrite.
TEST_F(GenaiPerfCliTest, MonitorAndReportFileRules) {
  TempDir tmp;
  const fs::path report_path = tmp.path() / "report.json";
  const std::vector<std::string> args = {
      "perf", "-m",   Flat().string(), "--iterations", "40", "--max-new-tokens",  "48", "--ignore-eos", "--monitor",
      "-f",   "json", "--ep-catalog",  kCatalog,       "-o", report_path.string()};
  const ProcessResult result = RunModelkit(args);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const Json report = Json::parse(result.stdout_text);
  EXPECT_EQ(Json::parse(std::ifstream(report_path)), report);
  const Json& monitor = report.at("hw_monitor");
  EXPECT_EQ(monitor.at("monitor"), true);
  EXPECT_GE(monitor.at("cpu").at("sample_count").get<int>(), 1);
  EXPECT_GT(monitor.at("ram").at("peak_mb").get<double>(), 10.0);

  const ProcessResult again = RunModelkit(args);
  ExpectErrorLine(again, 2, "already exists");
  EXPECT_EQ(Json::parse(std::ifstream(report_path)), report) << "the first report was replaced";
}

TEST_F(GenaiPerfCliTest, OverrideWithoutHardwareStagesReportsConfigAndWarns) {
  const ProcessResult result = Perf(Flat(), {"--ep", "simnpu", "-f", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(Json::parse(result.stdout_text)["benchmark_info"]["ep"], "config");
  EXPECT_NE(result.stderr_text.find("did not take effect"), std::string::npos) << result.stderr_text;
  EXPECT_FALSE(fs::exists(Flat() / "_compiled")) << "an override that changed nothing wrote a derived bundle";
}

TEST_F(GenaiPerfCliTest, DeviceGpuRoutesHardwareStagesToWebGpu) {
  const std::map<std::string, std::string> env = LavapipeEnvironment();
  if (env.empty()) GTEST_SKIP() << "lavapipe is not set up (scripts/fetch_lavapipe.sh)";
  const ProcessResult result = Perf(Pipeline(), {"--device", "gpu", "-f", "json", "-q"}, env);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  // The shared KV buffers, bound to the GPU stages, must reach them at every step, not as bound the first time.
  EXPECT_EQ(GeneratedIds(Pipeline(), {"--device", "gpu"}, env), GeneratedIds(Pipeline(), {"--ep", "cpu"}));
  const Json report = Json::parse(result.stdout_text);
  EXPECT_EQ(report["benchmark_info"]["ep"], "webgpu");
  EXPECT_EQ(report["benchmark_info"]["effective_device"], "gpu");
  std::ifstream config(Pipeline() / "_compiled" / "genai_config.json");
  const Json derived = Json::parse(config);
  EXPECT_TRUE(
      derived["model"]["decoder"]["pipeline"][0]["ctx"]["session_options"]["provider_options"][0].contains("webgpu"))
      << derived.dump(2);
}

TEST_F(GenaiPerfCliTest, GenaiInputContract) {
  TempDir tmp;
  ExpectErrorLine(Perf(Pipeline(), {"--input-data", (tmp.path() / "x.npz").string()}), 2, "--input-data");
  const fs::path model = tmp.path() / "model.onnx";
  std::ofstream(model) << "x";
  ExpectErrorLine(RunModelkit({"perf", "-m", model.string(), "--runtime", "genai"}), 2, "directory");
  ExpectErrorLine(RunModelkit({"perf", "-m", (tmp.path() / "nope").string(), "--runtime", "genai"}), 2,
                  "(--runtime genai expects a directory holding genai_config.json)");
  ExpectErrorLine(RunModelkit({"perf", "-m", tmp.path().string(), "--runtime", "genai"}), 2,
                  "genai_config.json not found in");
  ExpectErrorLine(RunModelkit({"perf", "-m", model.string(), "--device", "config"}), 2, "--device config");
  ExpectErrorLine(Perf(Pipeline(), {"--ep", "nosuch"}), 2, "nosuch");
  ExpectErrorLine(Perf(Pipeline(), {"--device", "tpu"}), 2, "tpu");
  const ProcessResult help = RunModelkit({"perf", "--help"});
  EXPECT_NE(help.stdout_text.find("config"), std::string::npos);
}

TEST_F(GenaiPerfCliTest, FlagsThatMeanNothingForGenaiAreNamedOnce) {
  const ProcessResult result = Perf(Flat(), {"--batch-size", "4", "--ep-options", "a=b", "--ep", "cpu"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string line =
      "warning: the following options are ignored with --runtime genai: --batch-size, --ep-options\n";
  EXPECT_NE(result.stderr_text.find(line), std::string::npos) << result.stderr_text;
}

// -f jsonl on a bundle: one row per timed request, with the report's own figures.
TEST_F(GenaiPerfCliTest, TableFormatsGiveOneRowPerTimedRequest) {
  TempDir tmp;
  const ProcessResult result =
      RunModelkit({"perf", "-m", Pipeline().string(), "--iterations", "3", "--warmup", "1", "--max-new-tokens", "4",
                   "--ignore-eos", "--ep-catalog", kCatalog, "-f", "jsonl", "-o", (tmp.path() / "r.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::ifstream in(tmp.path() / "r.json");
  const Json report = Json::parse(in);
  std::istringstream lines(result.stdout_text);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    const Json row = Json::parse(line);
    const Json& request = report["requests"][rows + 1];  // after the warm-up request
    EXPECT_EQ(row["request"], rows);
    EXPECT_EQ(row["ttft_ms"], request["model_ttft_duration_ms"]);
    EXPECT_EQ(row["decode_tokens_per_second"], request["steady_state_decode_tokens_per_second"]);
    ++rows;
  }
  EXPECT_EQ(rows, 3);
}

// -f html on a bundle, as chromium sees it: the TTFT and decode-rate distributions of the timed requests, a decode
// timeline per request and the stages' prompt/token bars.
TEST_F(GenaiPerfCliTest, HtmlPageShowsEveryRequestAndStage) {
  TempDir tmp;
  const ProcessResult result =
      RunModelkit({"perf", "-m", Pipeline().string(), "--iterations", "3", "--warmup", "1", "--max-new-tokens", "5",
                   "--ignore-eos", "--ep-catalog", kCatalog, "-f", "html", "-o", (tmp.path() / "r.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  std::ofstream(tmp.path() / "r.html") << result.stdout_text;
  const Json census = BrowserCensus(tmp.path() / "r.html");
  ASSERT_TRUE(census.is_object());
  std::map<std::string, Json> figures;
  for (const Json& figure : census["figures"]) figures[figure["caption"].get<std::string>()] = figure;
  EXPECT_EQ(figures["Time to first token"]["bar_counts"], 3);
  EXPECT_EQ(figures["Decode rate"]["bar_counts"], 3);
  EXPECT_EQ(figures["Decode step time per token"]["series"], 3) << "one line per timed request";
  EXPECT_EQ(figures["Decode step time per token"]["table_rows"], 3 * 4) << "4 decode steps after the first token";
  EXPECT_EQ(figures["Time per stage and generation (prompt | token)"]["table_rows"], 4)
      << "embeddings, ctx, iter, lm_head";
  EXPECT_EQ(census["external"], Json::array());
}

// --prompt-tokens x --gen-tokens: every cell feeds a prompt of exactly that many tokens and generates exactly that
// many, after one warm-up; its rates are the means of its timed requests'; the page plots them.
TEST_F(GenaiPerfCliTest, SweepRunsEveryCellAtItsExactLengths) {
  TempDir tmp;
  const ProcessResult result =
      RunModelkit({"perf", "-m", Pipeline().string(), "--prompt-tokens", "8,20", "--gen-tokens", "3,6", "--iterations",
                   "2", "--ep-catalog", kCatalog, "-f", "json", "-o", (tmp.path() / "s.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const Json report = Json::parse(result.stdout_text);
  EXPECT_EQ(report["benchmark_info"]["sweep"], Json::parse(R"({"prompt_tokens": [8, 20], "gen_tokens": [3, 6]})"));
  ASSERT_EQ(report["sweep"].size(), 4u);
  const std::vector<std::pair<int, int>> cells = {{8, 3}, {8, 6}, {20, 3}, {20, 6}};
  for (size_t i = 0; i < cells.size(); ++i) {
    const Json& cell = report["sweep"][i];
    EXPECT_EQ(cell["prompt_tokens"], cells[i].first);
    EXPECT_EQ(cell["gen_tokens"], cells[i].second);
    ASSERT_EQ(cell["requests"].size(), 3u) << "one warm-up and two timed requests";
    EXPECT_EQ(cell["requests"][0]["kind"], "warmup");
    double prefill_rates = 0;
    for (size_t r = 1; r < 3; ++r) {
      const Json& request = cell["requests"][r];
      EXPECT_EQ(request["prompt_tokens"], cells[i].first);
      EXPECT_EQ(request["generated_tokens"], cells[i].second) << "--ignore-eos: exactly the asked length";
      prefill_rates += request["prefill_tokens_per_second"].get<double>();
    }
    EXPECT_NEAR(cell["pp_tokens_per_second"].get<double>(), prefill_rates / 2, 0.01 + prefill_rates * 1e-4);
  }
  std::ofstream(tmp.path() / "s.html") << RunModelkit({"report", (tmp.path() / "s.json").string()}).stdout_text;
  const Json census = BrowserCensus(tmp.path() / "s.html");
  ASSERT_TRUE(census.is_object());
  for (const Json& figure : census["figures"]) {
    EXPECT_EQ(figure["series"], 2) << figure.dump() << ": a line per generation length";
    EXPECT_EQ(figure["points"], 4) << figure.dump();
  }
  EXPECT_EQ(census["figures"].size(), 2u);

  // A cell beyond the context (64 positions), or a prompt given as well: exit 2 before anything runs.
  ExpectErrorLine(RunModelkit({"perf", "-m", Pipeline().string(), "--prompt-tokens", "60", "--gen-tokens", "8",
                               "--ep-catalog", kCatalog, "-o", (tmp.path() / "x.json").string()}),
                  2, "needs 68 positions; the bundle's context has 64");
  ExpectErrorLine(RunModelkit({"perf", "-m", Pipeline().string(), "--prompt-tokens", "8", "--prompt", "hi",
                               "--ep-catalog", kCatalog, "-o", (tmp.path() / "y.json").string()}),
                  2, "--prompt cannot be combined with --prompt-tokens");
  EXPECT_FALSE(fs::exists(tmp.path() / "x.json"));
}

// A phase longer than a second shows on a terminal with its stage and elapsed time, then the benchmark's bar with
// its ETA; off a terminal, or on one that cannot redraw a line (TERM=dumb), stderr gets none of it.
TEST_F(GenaiPerfCliTest, LongPhasesShowOnATerminalOnly) {
  // Each run compiles its own copy, whose ctx stage takes 1.8 s to compile.
  std::vector<std::unique_ptr<TempDir>> dirs;
  auto command = [&] {
    dirs.push_back(std::make_unique<TempDir>());
    const fs::path bundle = Copy(Pipeline(), *dirs.back());
    std::ifstream in(bundle / "genai_config.json");
    Json config = Json::parse(in);
    in.close();
    config["model"]["decoder"]["pipeline"][0]["ctx"]["session_options"]["provider_options"] =
        Json::parse(R"([{"simnpu": {"compile_delay_ms": "1800"}}])");
    std::ofstream(bundle / "genai_config.json") << config.dump(2);
    return std::string(MODELKIT_BINARY) + " perf -m " + bundle.string() +
           " --compile --iterations 3 --warmup 0 --max-new-tokens 4 --ignore-eos --ep-catalog " + kCatalog + " -o " +
           (dirs.back()->path() / "r.json").string() + " >/dev/null";
  };
  const ProcessResult on_terminal = RunProcess({"/usr/bin/script", "-qec", command(), "/dev/null"});
  ASSERT_EQ(on_terminal.exit_code, 0) << on_terminal.stdout_text;
  EXPECT_NE(on_terminal.stdout_text.find("compiling stage ctx for simnpu... 1."), std::string::npos)
      << on_terminal.stdout_text;
  EXPECT_NE(on_terminal.stdout_text.find("benchmarking ["), std::string::npos) << on_terminal.stdout_text;
  EXPECT_NE(on_terminal.stdout_text.find(", ETA "), std::string::npos) << on_terminal.stdout_text;

  const ProcessResult dumb = RunProcess({"/usr/bin/script", "-qec", command(), "/dev/null"}, {{"TERM", "dumb"}});
  ASSERT_EQ(dumb.exit_code, 0) << dumb.stdout_text;
  EXPECT_EQ(dumb.stdout_text.find("compiling stage"), std::string::npos) << dumb.stdout_text;
  EXPECT_EQ(dumb.stdout_text.find("\033[K"), std::string::npos) << dumb.stdout_text;

  const ProcessResult piped = RunProcess({"/bin/sh", "-c", command()});
  ASSERT_EQ(piped.exit_code, 0) << piped.stderr_text;
  EXPECT_EQ(piped.stderr_text.find("compiling stage"), std::string::npos) << piped.stderr_text;
  EXPECT_EQ(piped.stderr_text.find('\r'), std::string::npos) << piped.stderr_text;
}

// A run killed while its compiler runs leaves nothing a later run trusts; the later run compiles and succeeds.
TEST_F(GenaiPerfCliTest, KilledCompileLeavesNothingTrusted) {
  TempDir tmp;
  const fs::path bundle = Copy(Pipeline(), tmp);
  std::ifstream in(bundle / "genai_config.json");
  Json config = Json::parse(in);
  in.close();
  config["model"]["decoder"]["pipeline"][0]["ctx"]["session_options"]["provider_options"] =
      Json::parse(R"([{"simnpu": {"compile_delay_ms": "4000"}}])");
  std::ofstream(bundle / "genai_config.json") << config.dump(2);
  const ProcessResult killed = RunProcess(
      {"/usr/bin/timeout", "-s", "KILL", "1.5", MODELKIT_BINARY, "perf", "-m", bundle.string(), "--compile",
       "--iterations", "1", "--warmup", "0", "--ep-catalog", kCatalog, "-o", (tmp.path() / "k.json").string()},
      {{"MODELKIT_EP_CATALOG", "none"}});
  EXPECT_EQ(killed.exit_code, 128 + 9) << killed.stderr_text;
  EXPECT_FALSE(fs::exists(bundle / "_compiled")) << "a killed first compile left a derived bundle";
  const Json report = PerfJson(bundle, {"--compile"});
  EXPECT_EQ(report["benchmark_info"]["compiled_stages"], Json::parse(R"(["ctx", "iter"])")) << report.dump(2);
  std::ifstream derived(bundle / "_compiled" / "genai_config.json");
  const std::string ctx_artifact = Json::parse(derived)["model"]["decoder"]["pipeline"][0]["ctx"]["filename"];
  EXPECT_EQ(ctx_artifact.rfind("ctx_simnpu-", 0), 0u) << ctx_artifact << ": named by EP and option set";
  EXPECT_TRUE(fs::exists(bundle / "_compiled" / ctx_artifact));
  for (const fs::directory_entry& entry : fs::directory_iterator(bundle)) {
    EXPECT_EQ(entry.path().filename().string().find("_compiled."), std::string::npos) << entry.path();
  }
}

TEST_F(GenaiPerfCliTest, ConcurrentCompilingRunsAllSucceedWithOneConsistentDerivedBundle) {
  TempDir tmp;
  const fs::path bundle = Copy(Pipeline(), tmp);
  std::vector<ProcessResult> results(4);
  std::vector<std::thread> runs;
  for (size_t i = 0; i < results.size(); ++i) {
    runs.emplace_back([&, i] { results[i] = Perf(bundle, {"--compile", "-f", "json", "-q"}); });
  }
  for (std::thread& run : runs) run.join();
  for (const ProcessResult& result : results) {
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
    EXPECT_EQ(Json::parse(result.stdout_text)["benchmark_info"]["compiled_stages"].size(), 2u);
  }
  std::ifstream config(bundle / "_compiled" / "genai_config.json");
  const Json derived = Json::parse(config);
  EXPECT_EQ(derived["model"]["decoder"]["pipeline"][0]["ctx"]["filename"], "ctx_simnpu_ctx.onnx");
  EXPECT_TRUE(fs::exists(bundle / "_compiled" / ".modelkit_bundle_complete"));
  for (const fs::directory_entry& entry : fs::directory_iterator(bundle)) {
    EXPECT_EQ(entry.path().filename().string().find("_compiled."), std::string::npos) << entry.path();
  }
}

// The windowed NPU layout under every route the session offers: the report names the window and the prompt
// windows, and the tokens are the same wherever the static stages run.
TEST_F(GenaiPerfCliTest, WindowedLayoutRunsUnderEveryRoute) {
  const Json expected = GeneratedIds(Windowed(), {"--ep", "cpu"});
  ASSERT_EQ(expected.size(), 12u);
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{}, {"--ep", "simnpu"}, {"--device", "npu"}, {"--device", "cpu"}}) {
    const std::string what = ::testing::PrintToString(flags);
    const Json report = PerfJson(Windowed(), flags);
    EXPECT_EQ(report["benchmark_info"]["window_size"], 16) << what;
    const int64_t prompt = report["benchmark_info"]["prompt_tokens"];
    EXPECT_EQ(report["benchmark_info"]["prompt_windows"], (prompt + 15) / 16) << what;
    EXPECT_EQ(GeneratedIds(Windowed(), flags), expected) << what;
  }
  // On WebGPU too (ORT copies a bound input to the GPU when it is bound: the runtime binds anew every run there).
  const std::map<std::string, std::string> gpu = LavapipeEnvironment();
  if (!gpu.empty()) {
    EXPECT_EQ(GeneratedIds(Windowed(), {"--device", "gpu"}, gpu), expected);
  }
  const ProcessResult text = Perf(Windowed(), {});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find(" prompt window(s) of 16 tokens (sliding_window)"), std::string::npos)
      << text.stdout_text;
}

// --compile on the windowed layout: the static stages are EPContext-compiled once, the second run reuses the
// artifacts (not rewritten), and the tokens do not change.
TEST_F(GenaiPerfCliTest, WindowedLayoutCompilesOnceAndReuses) {
  TempDir tmp;
  const fs::path bundle = Copy(Windowed(), tmp);
  const Json expected = GeneratedIds(bundle, {"--ep", "cpu"});
  EXPECT_EQ(PerfJson(bundle, {"--compile"})["benchmark_info"]["compiled_stages"], Json::parse(R"(["ctx", "iter"])"));
  const fs::path artifact = bundle / "_compiled" / "ctx_simnpu_ctx.onnx";
  ASSERT_TRUE(fs::exists(artifact));
  const auto written = fs::last_write_time(artifact);
  EXPECT_EQ(GeneratedIds(bundle, {"--compile"}), expected);
  EXPECT_EQ(PerfJson(bundle, {"--compile"})["benchmark_info"]["compiled_stages"], Json::parse(R"(["ctx", "iter"])"));
  EXPECT_EQ(fs::last_write_time(artifact), written) << "the second run compiled again";
}

// A generation that fills the static context stops there and says so: in the report and on generate's stderr.
TEST_F(GenaiPerfCliTest, WindowedLayoutStopsAtTheEndOfTheContext) {
  const auto perf = [&](const std::string& new_tokens, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {
        "perf",
        "-m",
        Windowed().string(),
        "--iterations",
        "1",
        "--warmup",
        "0",
        "--max-new-tokens",
        new_tokens,
        "--ignore-eos",
        "--ep-catalog",
        kCatalog,
        "-o",
        (Windowed().parent_path() / ("full-" + std::to_string(counter_++) + ".json")).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunModelkit(args);
  };
  const ProcessResult text = perf("100", {});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("Stopped at the end of the context (context_length 64) in 1 of 1"), std::string::npos)
      << text.stdout_text;
  const ProcessResult json = perf("100", {"-f", "json", "-q"});
  ASSERT_EQ(json.exit_code, 0) << json.stderr_text;
  const Json request = Json::parse(json.stdout_text)["requests"][0];
  EXPECT_EQ(request["context_full"], true);
  EXPECT_EQ(request["prompt_tokens"].get<int64_t>() + request["generated_tokens"].get<int64_t>(), 64);
  EXPECT_EQ(PerfJson(Windowed(), {})["requests"][0]["context_full"], false);
  const ProcessResult generate = RunModelkit({"generate", "-m", Windowed().string(), "--prompt-ids", "1,2,3",
                                              "--max-new-tokens", "100", "--ignore-eos", "--ep-catalog", kCatalog});
  ASSERT_EQ(generate.exit_code, 0) << generate.stderr_text;
  EXPECT_NE(generate.stderr_text.find("note: generation stopped at the end of the model's context (64 positions)"),
            std::string::npos)
      << generate.stderr_text;
}

}  // namespace
}  // namespace modelkit::test
