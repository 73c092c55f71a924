// `modelkit perf` on real models, as a user runs it: the JSON report's contract and the console report.
#include <gnu/libc-version.h>

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "modelkit/base/huge_pages.h"
#include "support/cli.h"
#include "support/lavapipe.h"
#include "support/model_case.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ProcessResult;

const fs::path kOcrDir = MODELKIT_OCR_MODELS_DIR;

json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Every field of the ONNX report, with its type, and the order statistics must obey.
void ExpectReportContract(const json& report, int iterations, int warmup) {
  EXPECT_EQ(report.at("schema_version"), 2);
  EXPECT_EQ(report.at("tool").at("name"), "modelkit");
  EXPECT_TRUE(report.at("tool").at("version").is_string());
  EXPECT_TRUE(report.at("tool").at("git_commit").is_string());
  const json& host = report.at("host");
  EXPECT_TRUE(host.at("cpu_model").is_string());
  EXPECT_GE(host.at("logical_cores").get<int>(), 1);
  EXPECT_GT(host.at("memory_total_mb").get<int64_t>(), 0);
  EXPECT_TRUE(host.at("os").is_string());
  EXPECT_EQ(host.at("ort_version"), "1.30.0");
  EXPECT_TRUE(host.at("huge_pages").at("malloc").is_boolean());
  const json& info = report.at("benchmark_info");
  EXPECT_EQ(info.at("runtime"), "onnx");
  for (const char* key :
       {"model_id", "running_model_path", "device", "resolved_device", "ep", "ep_alias", "timestamp"}) {
    EXPECT_TRUE(info.at(key).is_string()) << key;
  }
  EXPECT_TRUE(info.at("ep_options").is_object());
  EXPECT_EQ(info.at("iterations"), iterations);
  EXPECT_EQ(info.at("warmup"), warmup);
  EXPECT_TRUE(info.at("batch_size").is_number_integer());
  EXPECT_TRUE(info.at("effective_batch_size").is_number_integer());
  EXPECT_TRUE(info.at("load_duration_ms").is_number());
  const json& model = report.at("model_info");
  for (const char* key : {"input_names", "input_shapes", "input_types", "fed_input_shapes", "output_names",
                          "output_shapes", "output_types"}) {
    EXPECT_TRUE(model.at(key).is_array()) << key;
  }
  EXPECT_EQ(model.at("input_names").size(), model.at("fed_input_shapes").size());
  const json& latency = report.at("latency_ms");
  for (const char* key : {"mean", "min", "max", "p50", "p90", "p95", "p99", "std"}) {
    EXPECT_TRUE(latency.at(key).is_number()) << key;
  }
  EXPECT_LE(latency.at("min").get<double>(), latency.at("p50").get<double>());
  EXPECT_LE(latency.at("p50").get<double>(), latency.at("p90").get<double>());
  EXPECT_LE(latency.at("p90").get<double>(), latency.at("p95").get<double>());
  EXPECT_LE(latency.at("p95").get<double>(), latency.at("p99").get<double>());
  EXPECT_LE(latency.at("p99").get<double>(), latency.at("max").get<double>());
  EXPECT_EQ(latency.at("warmup_mean").is_null(), warmup == 0);
  EXPECT_GT(report.at("throughput").at("samples_per_sec").get<double>(), 0);
  EXPECT_GT(report.at("throughput").at("batches_per_sec").get<double>(), 0);
  // Warm-up is excluded: exactly the timed iterations are raw samples, and max is one of them.
  const json& raw = report.at("raw_samples_ms");
  ASSERT_EQ(raw.size(), static_cast<size_t>(iterations));
  double raw_max = 0;
  for (const json& sample : raw) raw_max = std::max(raw_max, sample.get<double>());
  EXPECT_DOUBLE_EQ(raw_max, latency.at("max").get<double>());
  // The same in ns, unrounded: every ms sample is its ns sample rounded to 3 decimals.
  const json& raw_ns = report.at("raw_samples_ns");
  ASSERT_EQ(raw_ns.size(), raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    EXPECT_NEAR(raw_ns[i].get<double>() / 1e6, raw[i].get<double>(), 0.0005 + 1e-9) << i;
  }
  const json& latency_ns = report.at("latency_ns");
  EXPECT_NEAR(latency_ns.at("p50").get<double>() / 1e6, latency.at("p50").get<double>(), 0.0005 + 1e-9);
  EXPECT_GT(latency_ns.at("std").get<double>(), 0) << "distinct samples have a spread";
  const json& memory = report.at("memory");
  EXPECT_GT(memory.at("rss_baseline_mb").get<double>(), 0);
  EXPECT_GE(memory.at("rss_checkpoint_peak_mb").get<double>(), memory.at("rss_after_compile_mb").get<double>());
  EXPECT_TRUE(report.at("warnings").is_array());
}

class PerfOcrModels : public ::testing::TestWithParam<std::string> {};

TEST_P(PerfOcrModels, JsonReportOnStdoutEqualsTheSavedReport) {
  ASSERT_TRUE(fs::exists(kOcrDir / GetParam())) << "run scripts/fetch_test_models.sh (scripts/setup.sh does)";
  test::TempDir dir;
  const fs::path output = dir.path() / "report.json";
  const ProcessResult result = test::RunModelkit({"perf", "-m", (kOcrDir / GetParam()).string(), "--iterations", "7",
                                                  "--warmup", "3", "-f", "json", "-o", output.string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_EQ(report, ReadJson(output));
  ExpectReportContract(report, 7, 3);
  EXPECT_EQ(report.at("benchmark_info").at("ep"), "CPUExecutionProvider");
  EXPECT_NE(result.stderr_text.find("Results saved to: " + output.string()), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(PaddleOcr, PerfOcrModels, ::testing::Values("cls.onnx", "det.onnx", "rec.onnx"));

TEST(PerfCli, TextReportAndDefaults) {
  test::TempDir dir;
  const fs::path output = dir.path() / "nested" / "report.json";
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--iterations", "5", "-o", output.string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(std::regex_search(result.stdout_text, std::regex("\nLatency \\((ns|µs|ms|s)\\)\n")))
      << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("Throughput:"), std::string::npos);
  EXPECT_NE(result.stdout_text.find("Results saved to: " + output.string()), std::string::npos);
  EXPECT_EQ(result.stderr_text.find("benchmarking"), std::string::npos) << "no progress bar off a terminal";
  EXPECT_EQ(result.stderr_text.find('\r'), std::string::npos) << result.stderr_text;
  const json report = ReadJson(output);
  EXPECT_EQ(report.at("benchmark_info").at("warmup"), 10) << "default warm-up";
  // The classifier's dynamic H and W take the positional defaults 224.
  EXPECT_EQ(report.at("model_info").at("fed_input_shapes").at(0), json::array({1, 3, 224, 224}));
}

// Flags that only shape a genai run are named once when they meet a single ONNX model, and change nothing.
TEST(PerfCli, GenaiOnlyFlagsAreNamedForAnOnnxModel) {
  test::TempDir dir;
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--iterations", "2", "--warmup", "0", "-o",
                         (dir.path() / "r.json").string(), "--max-new-tokens", "4", "--prompt", "hi"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(test::WithoutMachineWarnings(result.stderr_text),
            "warning: the following options apply to genai bundles and are ignored for the ONNX "
            "model '" +
                (kOcrDir / "cls.onnx").string() + "': --prompt, --max-new-tokens\n");
}

// ONNX Runtime's message is cleaned for the error line; -v adds it word for word on a second line.
TEST(PerfCli, VerboseShowsOnnxRuntimesWholeMessage) {
  test::TempDir dir;
  const fs::path model = dir.Write("broken.onnx", "this is not a protobuf");
  const std::vector<std::string> args = {"perf", "-m", model.string(), "-o", (dir.path() / "r.json").string()};
  const ProcessResult quiet = test::RunModelkit(args);
  EXPECT_EQ(quiet.exit_code, 3) << quiet.stderr_text;
  EXPECT_EQ(std::count(quiet.stderr_text.begin(), quiet.stderr_text.end(), '\n'), 1) << quiet.stderr_text;
  EXPECT_EQ(quiet.stderr_text.find("Load model from"), std::string::npos) << quiet.stderr_text;

  std::vector<std::string> verbose_args = args;
  verbose_args.push_back("-v");
  const ProcessResult verbose = test::RunModelkit(verbose_args);
  EXPECT_EQ(verbose.exit_code, 3);
  const std::string error_line = quiet.stderr_text;
  EXPECT_NE(verbose.stderr_text.find(error_line + "  in full: Load model from " + model.string() + " failed:"),
            std::string::npos)
      << verbose.stderr_text;
}

// modelkit restarts itself with glibc's malloc asking for huge pages where the kernel gives them only on request
// ("madvise") and glibc has the tunable; MODELKIT_HUGE_PAGES=0 keeps it from doing so. The report says which.
TEST(PerfCli, RestartsWithHugePageMallocUnlessOptedOut) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer builds use their own malloc and never restart";
#endif
  test::TempDir dir;
  const auto malloc_huge_pages = [&](const std::map<std::string, std::string>& env) {
    const fs::path output = dir.path() / "report.json";
    const ProcessResult result = test::RunModelkit(
        {"perf", "-m", (kOcrDir / "cls.onnx").string(), "--iterations", "1", "--overwrite", "-o", output.string()},
        env);
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return ReadJson(output).at("host").at("huge_pages").at("malloc").get<bool>();
  };
  const bool expected =
      TunablesForHugePageMalloc(nullptr, nullptr, TransparentHugePageMode(), gnu_get_libc_version()).has_value();
  // The test's own environment has no GLIBC_TUNABLES: what the report sees, the restart set.
  EXPECT_EQ(malloc_huge_pages({{"GLIBC_TUNABLES", ""}}), expected);
  EXPECT_FALSE(malloc_huge_pages({{"GLIBC_TUNABLES", ""}, {"MODELKIT_HUGE_PAGES", "0"}}));
  // A user's own tunables are kept, and a user's own choice of the malloc tunable is not overridden.
  EXPECT_FALSE(malloc_huge_pages({{"GLIBC_TUNABLES", "glibc.malloc.hugetlb=0"}}));
}

TEST(PerfCli, InputDataFeedsTheArraysShape) {
  test::TempDir dir;
  const fs::path npz = test::TestModelsDir() / "ocr_rec_input.npz";
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (kOcrDir / "rec.onnx").string(), "--input-data", npz.string(), "--iterations",
                         "2", "--warmup", "0", "-f", "json", "-o", (dir.path() / "r.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_EQ(report.at("benchmark_info").at("input_source"), "npz");
  const json& shape = report.at("model_info").at("fed_input_shapes").at(0);
  EXPECT_EQ(shape.at(2), 48);
  EXPECT_GT(shape.at(3).get<int>(), 200) << "the rendered line's width, not a default";
  EXPECT_EQ(report.at("benchmark_info").at("priming_runs"), 1) << "without warm-up one untimed run binds outputs";
}

TEST(PerfCli, ShapeConfigAndBatchSizeShapeSyntheticInputs) {
  test::TempDir dir;
  const auto config = dir.Write("shapes.json", R"({"x": [2, 3, 64, 96]})");
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--shape-config", config.string(),
                         "--iterations", "2", "--warmup", "1", "-f", "json", "-o", (dir.path() / "r.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_EQ(report.at("model_info").at("fed_input_shapes").at(0), json::array({2, 3, 64, 96}));
  EXPECT_EQ(report.at("benchmark_info").at("effective_batch_size"), 2);
  EXPECT_EQ(report.at("model_info").at("output_shapes").at(0), json::array({2, 2}));

  const ProcessResult batched =
      test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--batch-size", "4", "--iterations", "2",
                         "--warmup", "1", "-f", "json", "-o", (dir.path() / "b.json").string()});
  ASSERT_EQ(batched.exit_code, 0) << batched.stderr_text;
  EXPECT_EQ(json::parse(batched.stdout_text).at("model_info").at("fed_input_shapes").at(0),
            json::array({4, 3, 224, 224}));
}

// Ctrl-C stops a benchmark after the current iteration with exit 130 and one error line, and writes no report.
TEST(PerfCli, InterruptStopsWithExit130AndNoReport) {
  test::TempDir dir;
  const fs::path output = dir.path() / "report.json";
  test::ChildProcess child(
      {MODELKIT_BINARY, "perf", "-m", (kOcrDir / "cls.onnx").string(), "--duration", "600", "-o", output.string()});
  std::this_thread::sleep_for(std::chrono::seconds(3));  // loaded and iterating (or about to)
  const auto signalled = std::chrono::steady_clock::now();
  child.Signal(SIGINT);
  const ProcessResult result = child.Finish(std::chrono::seconds(60));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  EXPECT_FALSE(result.timed_out) << "still running 60 s after SIGINT";
  EXPECT_EQ(result.signal, 0) << "ended by signal " << result.signal << " instead of exiting";
  test::ExpectErrorLine(result, 130, "interrupted");
  EXPECT_LT(seconds, 10.0) << "took " << seconds << " s to stop after SIGINT";
  EXPECT_FALSE(fs::exists(output));
  EXPECT_TRUE(fs::is_empty(dir.path())) << "something was left behind";
}

TEST(PerfCli, DurationBoxesTheTimedLoop) {
  test::TempDir dir;
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (test::TestModelsDir() / "matmul_add.onnx").string(), "--duration", "0.3",
                         "--warmup", "2", "-f", "json", "-o", (dir.path() / "r.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_EQ(report.at("benchmark_info").at("duration_sec"), 0.3);
  const auto iterations = report.at("benchmark_info").at("iterations").get<size_t>();
  EXPECT_GT(iterations, 10u) << "a microsecond model runs many times in 0.3 s";
  EXPECT_EQ(report.at("raw_samples_ms").size(), iterations);
}

// The default report path has 1-second resolution; runs in quick succession or at once must each keep their report.
TEST(PerfCli, DefaultReportPathsNeverCollide) {
  test::TempDir cache;
  const std::map<std::string, std::string> env = {{"XDG_CACHE_HOME", cache.path().string()}};
  const std::vector<std::string> args = {
      "perf", "-m",  (test::TestModelsDir() / "matmul_add.onnx").string(), "--iterations", "2", "--warmup", "0",
      "-f",   "json"};
  std::set<std::string> saved;
  auto expect_saved = [&](const ProcessResult& result) {
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
    const std::string marker = "Results saved to: ";
    const size_t at = result.stderr_text.find(marker);
    ASSERT_NE(at, std::string::npos) << result.stderr_text;
    const std::string path =
        result.stderr_text.substr(at + marker.size(), result.stderr_text.find('\n', at) - at - marker.size());
    // The file named is this run's report: the same JSON it printed.
    EXPECT_EQ(ReadJson(path), json::parse(result.stdout_text)) << path;
    saved.insert(path);
  };
  for (int i = 0; i < 3; ++i) expect_saved(test::RunModelkit(args, env));
  std::vector<std::unique_ptr<test::ChildProcess>> concurrent;
  for (int i = 0; i < 4; ++i) concurrent.push_back(test::StartModelkit(args, env));
  for (auto& child : concurrent) expect_saved(child->Finish(std::chrono::seconds(60)));
  EXPECT_EQ(saved.size(), 7u);
  size_t reports = 0;
  for (const auto& entry : fs::recursive_directory_iterator(cache.path() / "modelkit" / "perf")) {
    reports += entry.is_regular_file();
  }
  EXPECT_EQ(reports, 7u) << "one report per run and nothing else (no temporary file left)";
}

// Conformance-suite models (Debian libonnx-testdata) with synthetic inputs.
TEST(PerfCli, RunsConformanceSuiteModels) {
  const fs::path suite = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::exists(suite)) << "install libonnx-testdata (scripts/setup.sh does)";
  test::TempDir dir;
  for (const char* name : {"test_matmul_2d", "test_relu", "test_softmax_example", "test_gemm_default_no_bias"}) {
    const ProcessResult result =
        test::RunModelkit({"perf", "-m", (suite / name / "model.onnx").string(), "--iterations", "3", "--warmup", "1",
                           "-f", "json", "-o", (dir.path() / (std::string(name) + ".json")).string()});
    ASSERT_EQ(result.exit_code, 0) << name << ": " << result.stderr_text;
    ExpectReportContract(json::parse(result.stdout_text), 3, 1);
  }
}

TEST(PerfCli, MonitorAddsResourceSamples) {
  test::TempDir dir;
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--monitor", "--duration", "0.7", "-f", "json",
                         "-o", (dir.path() / "r.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json monitor = json::parse(result.stdout_text).at("hw_monitor");
  EXPECT_EQ(monitor.at("monitor"), true);
  EXPECT_GE(monitor.at("cpu").at("sample_count").get<int>(), 2);
  EXPECT_GT(monitor.at("cpu").at("mean_pct").get<double>(), 10.0) << "the benchmark keeps a core busy";
  EXPECT_GT(monitor.at("ram").at("peak_mb").get<double>(), 10.0);
  EXPECT_GE(monitor.at("running_time_ns").get<int64_t>(), 700000000);
}

// -f csv, jsonl and md print the run as one row with the report's own figures; the report is written as always.
TEST(PerfCli, TableFormatsPrintTheRunAsARow) {
  test::TempDir dir;
  const fs::path output = dir.path() / "r.json";
  const ProcessResult csv = test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--iterations", "5",
                                               "--warmup", "1", "-f", "csv", "-o", output.string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.stderr_text;
  const fs::path csv_file = dir.path() / "r.csv";
  std::ofstream(csv_file) << csv.stdout_text;
  const ProcessResult read = test::RunProcess(
      {"/usr/bin/python3", "-c",
       "import csv, sys; rows = list(csv.DictReader(open(sys.argv[1]))); print(len(rows), rows[0]['p50_ns'])",
       csv_file.string()});
  ASSERT_EQ(read.exit_code, 0) << read.stderr_text;
  EXPECT_EQ(read.stdout_text, "1 " + ReadJson(output).at("latency_ns").at("p50").dump() + "\n") << csv.stdout_text;
  EXPECT_NE(csv.stderr_text.find("Results saved to: " + output.string()), std::string::npos) << csv.stderr_text;

  const ProcessResult jsonl = test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--iterations", "5",
                                                 "-f", "jsonl", "-o", (dir.path() / "j.json").string()});
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.stderr_text;
  EXPECT_EQ(json::parse(jsonl.stdout_text).at("iterations"), 5);

  const ProcessResult md = test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--iterations", "5", "-f",
                                              "md", "-o", (dir.path() / "m.json").string()});
  ASSERT_EQ(md.exit_code, 0) << md.stderr_text;
  EXPECT_EQ(md.stdout_text.rfind("| model | ep | device | batch | iterations | mean_ns |", 0), 0u) << md.stdout_text;
}

// --batch-size 1,2,3: a run per batch size, each with its own samples and throughput, a row each in text and CSV.
TEST(PerfCli, BatchSizeListRunsASweep) {
  test::TempDir dir;
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--ep", "cpu", "--batch-size", "1,2,3",
                         "--iterations", "4", "--warmup", "1", "-f", "json", "-o", (dir.path() / "s.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_EQ(report.at("benchmark_info").at("sweep").at("batch_sizes"), json({1, 2, 3}));
  EXPECT_FALSE(report.contains("latency_ms")) << "the figures are per cell";
  ASSERT_EQ(report.at("sweep").size(), 3u);
  for (int batch = 1; batch <= 3; ++batch) {
    const json& cell = report.at("sweep").at(batch - 1);
    EXPECT_EQ(cell.at("batch_size"), batch);
    EXPECT_EQ(cell.at("effective_batch_size"), batch) << "cls.onnx has a dynamic batch dimension";
    ASSERT_EQ(cell.at("raw_samples_ns").size(), 4u);
    double sum = 0;
    for (const json& ns : cell.at("raw_samples_ns")) sum += ns.get<double>();
    EXPECT_NEAR(cell.at("throughput").at("samples_per_sec").get<double>(), batch * 1e9 / (sum / 4), 0.01);
  }
  const ProcessResult text =
      test::RunModelkit({"perf", "-m", (kOcrDir / "cls.onnx").string(), "--ep", "cpu", "--batch-size", "1,2",
                         "--iterations", "3", "--warmup", "0", "-o", (dir.path() / "t.json").string()});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_TRUE(std::regex_search(text.stdout_text, std::regex("\n  Batch +Effective +P50 +P90 +Avg +Samples/s\n  1 +1 "
                                                             "[^\n]+\n  2 +2 ")))
      << text.stdout_text;
}

// The progress bar is drawn on a terminal only: under a pseudo-terminal (util-linux `script`) it appears.
TEST(PerfCli, ProgressBarOnlyOnATerminal) {
  test::TempDir dir;
  const std::string command = std::string(MODELKIT_BINARY) + " perf -m " + (kOcrDir / "cls.onnx").string() +
                              " --iterations 40 -o " + (dir.path() / "r.json").string() + " >/dev/null";
  const ProcessResult on_terminal = test::RunProcess({"/usr/bin/script", "-qec", command, "/dev/null"});
  ASSERT_EQ(on_terminal.exit_code, 0) << on_terminal.stderr_text;
  EXPECT_NE(on_terminal.stdout_text.find("benchmarking ["), std::string::npos) << on_terminal.stdout_text;
  EXPECT_NE(on_terminal.stdout_text.find("50/50"), std::string::npos) << "10 warm-up + 40 timed";
  EXPECT_NE(on_terminal.stdout_text.find(", ETA "), std::string::npos) << on_terminal.stdout_text;
}

// With the software Vulkan adapter, --device gpu routes the model to WebGPU.
TEST(PerfCli, DeviceGpuRunsOnWebGpu) {
  test::TempDir dir;
  const ProcessResult result =
      test::RunModelkit({"perf", "-m", (test::TestModelsDir() / "matmul_nbits.onnx").string(), "--device", "gpu",
                         "--iterations", "3", "--warmup", "1", "-f", "json", "-o", (dir.path() / "r.json").string()},
                        test::LavapipeEnvironment());
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_EQ(report.at("benchmark_info").at("ep"), "WebGpuExecutionProvider");
  EXPECT_EQ(report.at("benchmark_info").at("resolved_device"), "gpu");
}

}  // namespace
}  // namespace modelkit
