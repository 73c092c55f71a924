#include "modelkit/report/onnx_report.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace modelkit::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;

Dim D(int64_t value) { return Dim{value, ""}; }
Dim Dyn(std::string param) { return Dim{std::nullopt, std::move(param)}; }

TensorSpec Spec(std::string name, ElementType type, std::vector<Dim> dims) {
  return TensorSpec{std::move(name), type, std::move(dims), true};
}

OnnxPerfOptions Options() {
  OnnxPerfOptions options;
  options.model = "/models/My Model_v2.onnx";
  options.device = device::DeviceRequest::Of(device::DeviceKind::kGpu);
  options.ep_options = {{"device_type", "GPU"}};
  options.iterations = 10;
  options.warmup = 2;
  options.batch_size = 2;
  options.batch_size_given = true;
  return options;
}

OnnxPerfResult Result() {
  OnnxPerfResult result;
  result.ep_name = "CPUExecutionProvider";
  result.ep_alias = "cpu";
  result.resolved_device = "cpu";
  TensorSpec unknown = Spec("extra", ElementType::kBool, {});
  unknown.shape_known = false;
  result.inputs = {Spec("input_ids", ElementType::kInt64, {Dyn("batch"), Dyn("sequence")}),
                   Spec("pixels", ElementType::kFloat, {D(1), D(3), Dim{-1, ""}, D(224)}), unknown};
  result.outputs = {Spec("logits", ElementType::kFloat, {Dyn("batch"), D(10)}),
                    Spec("hidden", ElementType::kFloat16, {Dyn("batch"), Dyn("seq_out")})};
  result.fed_shapes = {{4, 128}, {1, 3, 224, 224}, {4}};
  result.output_shapes = {{4, 10}};  // the second output's shape was not recorded: its declared shape is used
  result.effective_batch = 4;
  result.warmup_ns = {100'000'000, 50'000'000};
  result.samples_ns = {1'000'000, 2'000'000, 3'000'000, 4'000'000, 10'000'000,
                       1'234'560, 2'500'000, 3'333'300, 7'777'700, 5'000'000};
  result.load_ms = 123.45678;
  result.memory.baseline = 100.126;
  result.memory.after_load = 250.5;
  result.warnings = {"batch 2 requested, the model runs batch 4"};
  return result;
}

ReportContext Context() {
  ReportContext context{"models/My Model_v2.onnx", "0.3.0", "abc1234", "2026-12-03T08:15:00Z", "1.23.0", {}, {}};
  context.command_line = {"modelkit", "perf", "-m", "models/My Model_v2.onnx"};
  context.host_at_start.load_average_1m = 0.4242;
  context.host_at_start.memory_available_mb = 20480;
  context.host_at_start.cpu_mhz = 2096.017;
  context.host_at_start.smt_active = false;
  return context;
}

std::vector<std::string> Keys(const ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

TEST(OnnxReportJson, TopLevelKeysInOrder) {
  const ordered_json report = OnnxReportJson(Options(), Result(), Context());
  EXPECT_EQ(Keys(report), (std::vector<std::string>{"schema_version", "tool", "host", "benchmark_info", "model_info",
                                                    "latency_ms", "throughput", "raw_samples_ms", "latency_ns",
                                                    "raw_samples_ns", "memory", "reproducibility", "warnings"}));
  EXPECT_EQ(report["schema_version"], 2);
  EXPECT_EQ(report["tool"], (ordered_json{{"name", "modelkit"}, {"version", "0.3.0"}, {"git_commit", "abc1234"}}));
  EXPECT_EQ(Keys(report["host"]), (std::vector<std::string>{"cpu_model", "logical_cores", "memory_total_mb", "os",
                                                            "ort_version", "huge_pages"}));
  EXPECT_EQ(report["host"]["ort_version"], "1.23.0");
  EXPECT_GE(report["host"]["logical_cores"].get<int>(), 1);
  EXPECT_EQ(report["warnings"], (ordered_json{"batch 2 requested, the model runs batch 4"}));
}

TEST(OnnxReportJson, BenchmarkInfo) {
  const ordered_json info = OnnxReportJson(Options(), Result(), Context())["benchmark_info"];
  EXPECT_EQ(info["runtime"], "onnx");
  EXPECT_EQ(info["model_id"], "models/My Model_v2.onnx");
  EXPECT_EQ(info["running_model_path"], "/models/My Model_v2.onnx");
  EXPECT_EQ(info["device"], "gpu");
  EXPECT_EQ(info["resolved_device"], "cpu");
  EXPECT_EQ(info["ep"], "CPUExecutionProvider");
  EXPECT_EQ(info["ep_alias"], "cpu");
  EXPECT_EQ(info["ep_options"], (ordered_json{{"device_type", "GPU"}}));
  EXPECT_EQ(info["iterations"], 10);
  EXPECT_EQ(info["warmup"], 2);
  EXPECT_EQ(info["priming_runs"], 0);
  EXPECT_TRUE(info["duration_sec"].is_null());
  EXPECT_EQ(info["batch_size"], 2);
  EXPECT_EQ(info["effective_batch_size"], 4);
  EXPECT_EQ(info["input_source"], "synthetic");
  EXPECT_EQ(info["load_duration_ms"], 123.457);
  EXPECT_EQ(info["timestamp"], "2026-12-03T08:15:00Z");

  OnnxPerfOptions npz = Options();
  npz.input_data = "inputs.npz";
  npz.duration_s = 2.5;
  const ordered_json npz_info = OnnxReportJson(npz, Result(), Context())["benchmark_info"];
  EXPECT_EQ(npz_info["input_source"], "npz");
  EXPECT_EQ(npz_info["duration_sec"], 2.5);
}

TEST(OnnxReportJson, LatencyFromSamplesRounded) {
  const ordered_json report = OnnxReportJson(Options(), Result(), Context());
  const ordered_json& latency = report["latency_ms"];
  EXPECT_EQ(Keys(latency),
            (std::vector<std::string>{"mean", "min", "max", "p50", "p90", "p95", "p99", "std", "warmup_mean"}));
  // Sorted: 1, 1.23456, 2, 2.5, 3, 3.3333, 4, 5, 7.7777, 10; sum 39.84556.
  EXPECT_EQ(latency["mean"], 3.985);
  EXPECT_EQ(latency["min"], 1.0);
  EXPECT_EQ(latency["max"], 10.0);
  EXPECT_EQ(latency["p50"], 3.333);  // 6th smallest, rounded
  EXPECT_EQ(latency["p90"], 10.0);
  EXPECT_EQ(latency["p95"], 10.0);
  EXPECT_EQ(latency["p99"], 10.0);
  EXPECT_EQ(latency["std"], 2.75);          // population std 2.74974...
  EXPECT_EQ(latency["warmup_mean"], 75.0);  // warm-up runs excluded from everything else
  EXPECT_EQ(report["raw_samples_ms"], (ordered_json{1.0, 2.0, 3.0, 4.0, 10.0, 1.235, 2.5, 3.333, 7.778, 5.0}));
}

TEST(OnnxReportJson, LatencyInNanosecondsKeepsWhatMillisecondsRoundAway) {
  OnnxPerfResult result = Result();
  result.samples_ns = {3812, 3790, 3805, 4410, 3799};
  result.warmup_ns = {9000};
  const ordered_json report = OnnxReportJson(Options(), result, Context());
  // Upstream's ms block cannot tell these apart ...
  EXPECT_EQ(report["latency_ms"]["p50"], 0.004);
  EXPECT_EQ(report["latency_ms"]["p99"], 0.004);
  EXPECT_EQ(report["latency_ms"]["std"], 0.0);
  // ... the ns block can. Sorted: 3790, 3799, 3805, 3812, 4410; mean 3923.2.
  const ordered_json& latency = report["latency_ns"];
  EXPECT_EQ(Keys(latency),
            (std::vector<std::string>{"mean", "min", "max", "p50", "p90", "p95", "p99", "std", "warmup_mean"}));
  EXPECT_EQ(latency["mean"], 3923.2);
  EXPECT_EQ(latency["p50"], 3805.0);
  EXPECT_EQ(latency["p99"], 4410.0);
  EXPECT_EQ(latency["min"], 3790.0);
  EXPECT_EQ(latency["std"], 243.5);  // population std 243.507...
  EXPECT_EQ(latency["warmup_mean"], 9000.0);
  EXPECT_EQ(report["raw_samples_ns"], (ordered_json{3812, 3790, 3805, 4410, 3799}));

  const std::string text = OnnxReportText(report);
  EXPECT_THAT(text, HasSubstr("Latency (µs)"));
  EXPECT_THAT(text, HasSubstr("3.81"));   // p50
  EXPECT_THAT(text, HasSubstr("4.41"));   // p99
  EXPECT_THAT(text, HasSubstr("0.243"));  // std: 243.5 ns in the JSON
  EXPECT_THAT(text, HasSubstr("warmup: 9.00 µs avg"));
}

TEST(OnnxReportText, ReportsWithoutNanosecondsFallBackToMilliseconds) {
  ordered_json report = OnnxReportJson(Options(), Result(), Context());
  report.erase("latency_ns");
  report.erase("raw_samples_ns");
  const std::string text = OnnxReportText(report);
  EXPECT_THAT(text, HasSubstr("Latency (ms)"));
  EXPECT_THAT(text, HasSubstr("3.33"));  // p50 from the ms block
}

TEST(OnnxReportJson, ThroughputUsesEffectiveBatch) {
  const ordered_json report = OnnxReportJson(Options(), Result(), Context());
  EXPECT_EQ(Keys(report["throughput"]), (std::vector<std::string>{"samples_per_sec", "batches_per_sec"}));
  EXPECT_EQ(report["throughput"]["samples_per_sec"], 1003.88);  // 4 / 0.003984556 s = 1003.8759...
  EXPECT_EQ(report["throughput"]["batches_per_sec"], 250.97);   // 1 / 0.003984556 s = 250.9689...

  OnnxPerfResult single = Result();
  single.effective_batch = 1;
  single.samples_ns = {8'000'000, 8'000'000};
  const ordered_json throughput = OnnxReportJson(Options(), single, Context())["throughput"];
  EXPECT_EQ(throughput["samples_per_sec"], 125.0);
  EXPECT_EQ(throughput["batches_per_sec"], 125.0);
}

TEST(OnnxReportJson, NoSamplesGiveNullsAndZeroThroughput) {
  OnnxPerfResult result = Result();
  result.samples_ns.clear();
  result.warmup_ns.clear();
  const ordered_json report = OnnxReportJson(Options(), result, Context());
  for (const auto& item : report["latency_ms"].items()) EXPECT_TRUE(item.value().is_null()) << item.key();
  EXPECT_EQ(report["throughput"]["samples_per_sec"], 0.0);
  EXPECT_EQ(report["throughput"]["batches_per_sec"], 0.0);
  EXPECT_EQ(report["raw_samples_ms"], ordered_json::array());
  for (const auto& item : report["latency_ns"].items()) EXPECT_TRUE(item.value().is_null()) << item.key();
  EXPECT_EQ(report["raw_samples_ns"], ordered_json::array());
  EXPECT_EQ(report["benchmark_info"]["iterations"], 0);
}

TEST(OnnxReportJson, MemoryBlockWithNullsForUnmeasured) {
  const ordered_json memory = OnnxReportJson(Options(), Result(), Context())["memory"];
  EXPECT_EQ(Keys(memory), (std::vector<std::string>{"rss_baseline_mb", "rss_after_compile_mb", "rss_after_inference_mb",
                                                    "rss_checkpoint_peak_mb", "rss_model_load_delta_mb",
                                                    "rss_inference_delta_mb", "rss_total_delta_mb"}));
  EXPECT_EQ(memory["rss_baseline_mb"], 100.13);
  EXPECT_EQ(memory["rss_after_compile_mb"], 250.5);
  EXPECT_TRUE(memory["rss_after_inference_mb"].is_null());
  EXPECT_EQ(memory["rss_checkpoint_peak_mb"], 250.5);
  EXPECT_EQ(memory["rss_model_load_delta_mb"], 150.37);
  EXPECT_TRUE(memory["rss_inference_delta_mb"].is_null());
  EXPECT_TRUE(memory["rss_total_delta_mb"].is_null());
  EXPECT_THAT(memory.dump(), Not(HasSubstr("-1")));

  OnnxPerfResult full = Result();
  full.memory.after_inference = 240.004;
  const ordered_json all = OnnxReportJson(Options(), full, Context())["memory"];
  EXPECT_EQ(all["rss_after_inference_mb"], 240.0);
  EXPECT_EQ(all["rss_checkpoint_peak_mb"], 250.5);
  EXPECT_EQ(all["rss_inference_delta_mb"], -10.5);  // 240.004 - 250.5 = -10.496
  EXPECT_EQ(all["rss_total_delta_mb"], 139.88);     // 240.004 - 100.126 = 139.878
}

TEST(OnnxReportJson, MemoryBlockOnlyWithMemoryOption) {
  OnnxPerfOptions options = Options();
  options.memory = false;
  const ordered_json report = OnnxReportJson(options, Result(), Context());
  EXPECT_FALSE(report.contains("memory"));
  EXPECT_EQ(Keys(report), (std::vector<std::string>{"schema_version", "tool", "host", "benchmark_info", "model_info",
                                                    "latency_ms", "throughput", "raw_samples_ms", "latency_ns",
                                                    "raw_samples_ns", "reproducibility", "warnings"}));
}

TEST(OnnxReportJson, ModelInfoShapes) {
  const ordered_json model = OnnxReportJson(Options(), Result(), Context())["model_info"];
  EXPECT_EQ(model["input_names"], (ordered_json{"input_ids", "pixels", "extra"}));
  EXPECT_EQ(model["input_shapes"], ordered_json::parse(R"([["batch", "sequence"], [1, 3, null, 224], null])"));
  EXPECT_EQ(model["input_types"], (ordered_json{"int64", "float32", "bool"}));
  EXPECT_EQ(model["fed_input_shapes"], ordered_json::parse("[[4, 128], [1, 3, 224, 224], [4]]"));
  EXPECT_EQ(model["output_names"], (ordered_json{"logits", "hidden"}));
  EXPECT_EQ(model["output_shapes"], ordered_json::parse(R"([[4, 10], ["batch", "seq_out"]])"));
  EXPECT_EQ(model["output_types"], (ordered_json{"float32", "float16"}));
}

TEST(OnnxReportText, LatencyTableAndSummary) {
  const std::string text = OnnxReportText(OnnxReportJson(Options(), Result(), Context()));
  EXPECT_THAT(text, HasSubstr("Latency (ms)"));
  EXPECT_THAT(text, HasSubstr("3.33"));  // p50
  EXPECT_THAT(text, HasSubstr("3.98"));  // mean
  EXPECT_THAT(text, HasSubstr("10.0"));  // max / p90
  EXPECT_THAT(text, HasSubstr("2.75"));  // std
  EXPECT_THAT(text, HasSubstr("Model:   /models/My Model_v2.onnx\n"));
  EXPECT_THAT(text, HasSubstr("Device:  gpu (cpu) / CPUExecutionProvider\n"));
  EXPECT_THAT(text, HasSubstr("Input:   input_ids int64 [4, 128]\n"));
  EXPECT_THAT(text, HasSubstr("Iterations: 10 timed; warmup: 75.0 ms avg (first 2 iterations, excluded)"));
  EXPECT_THAT(text, HasSubstr("Throughput: 1003.88 samples/sec (batch 4)"));
  EXPECT_THAT(text, HasSubstr("Memory (RSS): baseline 100.1 MB, after load 250.5 MB"));
  // P50 sits in the second column, under its header.
  const size_t header = text.find("Avg");
  ASSERT_NE(header, std::string::npos);
  const size_t header_end = text.find('\n', header);
  const size_t row = header_end + 1;
  const size_t p50_column = text.find("P50", header) - text.rfind('\n', header) - 1;
  EXPECT_EQ(text.substr(row + p50_column, 4), "3.33");
}

TEST(OnnxReportJson, ReproducibilityHasTheCommandLineSettingsAndHostAtStart) {
  const ordered_json block = OnnxReportJson(Options(), Result(), Context()).at("reproducibility");
  EXPECT_EQ(block.at("command_line"), (ordered_json{"modelkit", "perf", "-m", "models/My Model_v2.onnx"}));
  const ordered_json& settings = block.at("settings");
  EXPECT_EQ(settings.at("iterations"), 10);
  EXPECT_EQ(settings.at("warmup"), 2);
  EXPECT_EQ(settings.at("intra_op_threads"), "ort_default");
  EXPECT_EQ(settings.at("input_source"), "synthetic");
  EXPECT_EQ(settings.at("fail_on_fallback"), false);
  EXPECT_EQ(block.at("host_at_start"), (ordered_json{{"cpu_mhz", 2096.0},
                                                     {"cpu_governor", nullptr},
                                                     {"smt_active", false},
                                                     {"load_average_1m", 0.42},
                                                     {"memory_available_mb", 20480}}));
  OnnxPerfOptions threaded = Options();
  threaded.intra_op_threads = 3;
  EXPECT_EQ(OnnxReportJson(threaded, Result(), Context()).at("reproducibility").at("settings").at("intra_op_threads"),
            3);
}

TEST(HostStateWarnings, BusyMachineAndGovernor) {
  HostState state;
  EXPECT_TRUE(HostStateWarnings(state, 2).empty()) << "nothing known, nothing to say";
  state.load_average_1m = 0.99;
  state.cpu_governor = "performance";
  EXPECT_TRUE(HostStateWarnings(state, 2).empty());
  state.load_average_1m = 1.0;  // half of 2 cores
  state.cpu_governor = "powersave";
  const std::vector<std::string> warnings = HostStateWarnings(state, 2);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("load average 1.00 on 2 logical cores"));
  EXPECT_THAT(warnings[1], HasSubstr("governor is 'powersave', not 'performance'"));
  EXPECT_TRUE(HostStateWarnings(state, 64).size() == 1u) << "load 1 is not busy for 64 cores";
}

TEST(OnnxReportText, HostAtStartLine) {
  const std::string text = OnnxReportText(OnnxReportJson(Options(), Result(), Context()));
  EXPECT_THAT(text, HasSubstr("Host at start: load 0.42 on "));
  EXPECT_THAT(text, HasSubstr(" cores, 20480 MB available, 2096 MHz, governor -, SMT off\n"));
}

TEST(OnnxReportText, NoWarmupNoMemory) {
  OnnxPerfOptions options = Options();
  options.memory = false;
  OnnxPerfResult result = Result();
  result.warmup_ns.clear();
  const std::string text = OnnxReportText(OnnxReportJson(options, result, Context()));
  EXPECT_THAT(text, HasSubstr("Iterations: 10 timed\n"));
  EXPECT_THAT(text, Not(HasSubstr("warmup")));
  EXPECT_THAT(text, Not(HasSubstr("Memory")));
}

// Sets an environment variable (nullptr: unsets it) for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_.c_str(), old_->c_str(), 1) : unsetenv(name_.c_str()); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

TEST(DefaultReportPath, XdgCacheHomeWins) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
  ScopedEnv home("HOME", "/home/user");
  EXPECT_EQ(DefaultReportPath("/models/My Model_v2.onnx", "2026-12-03T08:15:00Z"),
            fs::path("/xdg/cache/modelkit/perf/my-model-v2/20261203-081500.json"));
}

TEST(DefaultReportPath, HomeCacheWhenXdgUnsetOrEmpty) {
  ScopedEnv home("HOME", "/home/user");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ(DefaultReportPath("ResNet50.v2.onnx", "2026-12-03T08:15:00Z"),
              fs::path("/home/user/.cache/modelkit/perf/resnet50-v2/20261203-081500.json"));
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "");
    EXPECT_EQ(DefaultReportPath("a/b/MODEL.onnx", "2025-01-09T23:59:07Z"),
              fs::path("/home/user/.cache/modelkit/perf/model/20250109-235907.json"));
  }
}

TEST(DefaultReportPath, SlugLowercasesAndReplacesNonAlphanumerics) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/c");
  EXPECT_EQ(DefaultReportPath("Bert_Base+Uncased (int8).onnx", "2026-12-03T08:15:00Z").parent_path().filename(),
            "bert-base-uncased--int8-");
  EXPECT_EQ(DefaultReportPath("/x/ABC123.onnx", "2026-12-03T08:15:00Z").parent_path().filename(), "abc123");
  EXPECT_EQ(DefaultReportPath("/x/.onnx", "2026-12-03T08:15:00Z").parent_path().filename(), "-onnx");
}

TEST(DefaultReportPath, TimestampCompacted) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/c");
  EXPECT_EQ(DefaultReportPath("m.onnx", "2026-12-03T08:15:00Z"), fs::path("/c/modelkit/perf/m/20261203-081500.json"));
  const std::string now = UtcTimestamp();
  ASSERT_EQ(now.size(), 20u) << now;
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
  EXPECT_EQ(DefaultReportPath("m.onnx", now).filename().string().size(), std::string("20261203-081500.json").size());
}

TEST(OnnxSweep, OneCellPerBatchSizeInsteadOfTheLatencyBlocks) {
  OnnxPerfResult small = Result();
  small.effective_batch = 1;
  small.samples_ns = {1000, 1000, 1000};
  OnnxPerfResult large = Result();
  large.effective_batch = 8;
  large.samples_ns = {4000, 4000, 4000};
  const ordered_json report = OnnxSweepJson(Options(), {1, 8}, {small, large}, Context());
  EXPECT_FALSE(report.contains("latency_ms"));
  EXPECT_FALSE(report.contains("raw_samples_ns"));
  EXPECT_EQ(report["benchmark_info"]["sweep"], ordered_json::parse(R"({"batch_sizes": [1, 8]})"));
  ASSERT_EQ(report["sweep"].size(), 2u);
  EXPECT_EQ(report["sweep"][1]["batch_size"], 8);
  EXPECT_EQ(report["sweep"][1]["latency_ns"]["p50"], 4000.0);
  EXPECT_EQ(report["sweep"][1]["throughput"]["samples_per_sec"], 2000000.0);  // 8 / 4 us
  EXPECT_EQ(report["sweep"][0]["raw_samples_ns"], ordered_json({1000, 1000, 1000}));
  const std::string text = OnnxSweepText(report);
  EXPECT_THAT(text, HasSubstr("  Batch  Effective  P50   P90   Avg   Samples/s\n"
                              "  1      1          1.00  1.00  1.00  1000000\n"
                              "  8      8          4.00  4.00  4.00  2000000\n"));
}

}  // namespace
}  // namespace modelkit::report
