// `modelkit generate` as users run it: JSON and streamed output on a bundle with the real Qwen3 tokenizer, Ctrl-C
// while it streams, and the bad-input contract (one error line; exit 2 for bad flags or a missing bundle, 3 for a bad
// bundle).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "modelkit/builder/bundle_builder.h"
#include "support/build_fixtures.h"
#include "support/cli.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;

class GenerateCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    builder::BuildOptions options;
    options.output_dir = dir_->path() / "bundle";
    options.random = true;
    options.random_spec = TinySpec(builder::Arch::kLlama);
    options.random_spec.vocab_size = 0;  // follow the tokenizer
    options.seed = 5;
    options.context_length = 96;
    options.tokenizer_dir = fs::path(MODELKIT_QWEN3_TOKENIZER_DIR);
    builder::BuildBundle(options);
    bundle_ = options.output_dir;
  }
  static void TearDownTestSuite() { delete dir_; }

  // A copy of the bundle to break.
  static fs::path Copy(const TempDir& tmp) {
    const fs::path copy = tmp.path() / "copy";
    fs::copy(bundle_, copy, fs::copy_options::recursive);
    return copy;
  }

  static TempDir* dir_;
  static fs::path bundle_;
};

TempDir* GenerateCliTest::dir_ = nullptr;
fs::path GenerateCliTest::bundle_;

TEST_F(GenerateCliTest, JsonReportHasIdsTextAndTimings) {
  const ProcessResult result = RunModelkit({"generate", "-m", bundle_.string(), "--prompt", "Hello there",
                                            "--max-new-tokens", "6", "--ignore-eos", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const auto report = nlohmann::json::parse(result.stdout_text);
  EXPECT_GT(report["prompt_ids"].size(), 3u);  // the chat template wraps the prompt
  EXPECT_EQ(report["generated_ids"].size(), 6u);
  EXPECT_TRUE(report["text"].is_string());
  EXPECT_EQ(report["stop_reason"], "max_new_tokens");
  // perf's names and rounding for the same quantities: the keys of one request of perf's report.
  const auto& timings = report["timings"];
  EXPECT_GT(timings["model_ttft_duration_ms"].get<double>(), 0.0);
  EXPECT_EQ(timings["decode_token_durations_ms"].size(), 5u);
  EXPECT_EQ(timings["decode_token_ort_durations_ms"].size(), 5u);
  EXPECT_EQ(timings["durations_ns"]["decode_tokens"].size(), 5u);
  EXPECT_GT(timings["tokenization_duration_ms"].get<double>(), 0.0);
  EXPECT_EQ(timings["prompt_tokens"], report["prompt_ids"].size());
  EXPECT_EQ(timings["generated_tokens"], 6);
  EXPECT_EQ(timings["stages"][0]["name"], "decoder");
  EXPECT_GT(report["load"]["session_load_duration_ms"].get<double>(), 0.0);
  for (const auto& step : timings["decode_token_durations_ms"]) {
    const double ms = step.get<double>();
    EXPECT_DOUBLE_EQ(ms, std::round(ms * 1000) / 1000) << "3 decimals, as perf rounds";
  }
  test::TempDir dir;
  const ProcessResult perf =
      RunModelkit({"perf", "-m", bundle_.string(), "--prompt", "Hello there", "--max-new-tokens", "6", "--ignore-eos",
                   "--iterations", "1", "--warmup", "0", "-f", "json", "-o", (dir.path() / "p.json").string()});
  ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
  nlohmann::json request = nlohmann::json::parse(perf.stdout_text)["requests"][0];
  std::vector<std::string> perf_keys, generate_keys;
  for (const auto& item : request.items()) {
    if (item.key() != "kind" && item.key() != "index") perf_keys.push_back(item.key());
  }
  for (const auto& item : timings.items()) {
    if (item.key() != "decode_token_ort_durations_ms") generate_keys.push_back(item.key());
  }
  std::sort(perf_keys.begin(), perf_keys.end());
  std::sort(generate_keys.begin(), generate_keys.end());
  EXPECT_EQ(generate_keys, perf_keys);
}

// In text mode the text goes to stdout and one timing line to stderr.
TEST_F(GenerateCliTest, TextModePrintsOneTimingLineOnStderr) {
  const ProcessResult result =
      RunModelkit({"generate", "-m", bundle_.string(), "--prompt-ids", "1,2", "--max-new-tokens", "4", "--ignore-eos"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(std::regex_match(result.stderr_text,
                               std::regex("2 prompt tokens in [0-9.]+ (ns|µs|ms|s) \\([0-9.]+ tokens/s\\), 4 "
                                          "generated at [0-9.]+ tokens/s \\([0-9.]+ (ns|µs|ms|s)/token\\), TTFT "
                                          "[0-9.]+ (ns|µs|ms|s)\n")))
      << result.stderr_text;
}

TEST_F(GenerateCliTest, PromptIdsAreUsedAsGivenAndStreamingPrintsTheSameText) {
  const std::vector<std::string> base = {"generate",         "-m", bundle_.string(), "--prompt-ids", "9707, 1879,11",
                                         "--max-new-tokens", "8",  "--ignore-eos"};
  std::vector<std::string> json_args = base;
  json_args.insert(json_args.end(), {"--format", "json"});
  const ProcessResult json = RunModelkit(json_args);
  ASSERT_EQ(json.exit_code, 0) << json.stderr_text;
  const auto report = nlohmann::json::parse(json.stdout_text);
  EXPECT_EQ(report["prompt_ids"], nlohmann::json::parse("[9707, 1879, 11]"));
  const ProcessResult streamed = RunModelkit(base);
  ASSERT_EQ(streamed.exit_code, 0) << streamed.stderr_text;
  EXPECT_EQ(streamed.stdout_text, report["text"].get<std::string>() + "\n");
  // Greedy is deterministic.
  EXPECT_EQ(nlohmann::json::parse(RunModelkit(json_args).stdout_text)["generated_ids"], report["generated_ids"]);
}

// An unknown genai_config.json key is run past with one warning line; the built bundle gives no warning at all.
TEST_F(GenerateCliTest, UnknownConfigKeyIsOneWarning) {
  const auto run = [](const fs::path& bundle) {
    return RunModelkit(
        {"generate", "-m", bundle.string(), "--prompt-ids", "1,2", "--max-new-tokens", "2", "--format", "json"});
  };
  const ProcessResult clean = run(bundle_);
  ASSERT_EQ(clean.exit_code, 0) << clean.stderr_text;
  EXPECT_EQ(clean.stderr_text.find("warning"), std::string::npos) << clean.stderr_text;
  TempDir tmp;
  const fs::path bundle = Copy(tmp);
  {
    nlohmann::ordered_json config = nlohmann::ordered_json::parse(std::ifstream(bundle / "genai_config.json"));
    config["model"]["decoder"]["foo"] = "x";
    std::ofstream(bundle / "genai_config.json") << config.dump(2);
  }
  const ProcessResult warned = run(bundle);
  ASSERT_EQ(warned.exit_code, 0) << warned.stderr_text;
  EXPECT_EQ(warned.stderr_text, "warning: genai_config.json: unknown key 'model.decoder.foo' (ignored)\n");
  EXPECT_EQ(nlohmann::json::parse(warned.stdout_text)["generated_ids"],
            nlohmann::json::parse(clean.stdout_text)["generated_ids"]);
}

// session_options.enable_profiling names the prefix of ORT's profile, as in onnxruntime-genai: the trace is written
// there and holds one model_run per step (prompt + 3 tokens).
TEST_F(GenerateCliTest, EnableProfilingWritesOrtsTrace) {
  TempDir tmp;
  const fs::path bundle = Copy(tmp);
  const fs::path prefix = tmp.path() / "trace";
  {
    nlohmann::ordered_json config = nlohmann::ordered_json::parse(std::ifstream(bundle / "genai_config.json"));
    config["model"]["decoder"]["session_options"]["enable_profiling"] = prefix.string();
    std::ofstream(bundle / "genai_config.json") << config.dump(2);
  }
  const ProcessResult result = RunModelkit({"generate", "-m", bundle.string(), "--prompt-ids", "1,2",
                                            "--max-new-tokens", "4", "--ignore-eos", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.stderr_text, "");
  std::vector<fs::path> traces;
  for (const auto& entry : fs::directory_iterator(tmp.path())) {
    if (entry.path().filename().string().starts_with("trace")) traces.push_back(entry.path());
  }
  ASSERT_EQ(traces.size(), 1u);
  const nlohmann::json trace = nlohmann::json::parse(std::ifstream(traces[0]));
  const auto runs = std::count_if(trace.begin(), trace.end(), [](const nlohmann::json& event) {
    return event.value("cat", "") == "Session" && event.value("name", "") == "model_run";
  });
  EXPECT_EQ(runs, 4);
}

TEST_F(GenerateCliTest, SeededSamplingRepeats) {
  const std::vector<std::string> args = {
      "generate",      "-m",  bundle_.string(),   "--prompt", "Hi",           "--do-sample",
      "--temperature", "1.3", "--top-k",          "100",      "--top-p",      "0.9",
      "--seed",        "77",  "--max-new-tokens", "8",        "--ignore-eos", "--format",
      "json"};
  const ProcessResult a = RunModelkit(args), b = RunModelkit(args);
  ASSERT_EQ(a.exit_code, 0) << a.stderr_text;
  EXPECT_EQ(nlohmann::json::parse(a.stdout_text)["generated_ids"],
            nlohmann::json::parse(b.stdout_text)["generated_ids"]);
}

// A bundle whose search samples (as one built from a checkpoint whose generation_config.json samples): --greedy gives
// the greedy tokens of the unchanged bundle, without it two seeds differ, and --greedy with --do-sample is a usage
// error.
TEST_F(GenerateCliTest, GreedyOverridesABundleThatSamples) {
  TempDir tmp;
  const fs::path sampling = Copy(tmp);
  {
    nlohmann::ordered_json config = nlohmann::ordered_json::parse(std::ifstream(sampling / "genai_config.json"));
    config["search"]["do_sample"] = true;
    config["search"]["temperature"] = 1.5;
    config["search"]["top_k"] = 0;
    std::ofstream(sampling / "genai_config.json") << config.dump(2);
  }
  const auto ids = [](const fs::path& bundle, std::vector<std::string> extra) {
    std::vector<std::string> args = {"generate",         "-m", bundle.string(), "--prompt-ids", "9707,1879,11",
                                     "--max-new-tokens", "12", "--ignore-eos",  "--format",     "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult result = RunModelkit(args);
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return nlohmann::json::parse(result.stdout_text)["generated_ids"];
  };
  const auto greedy = ids(bundle_, {});
  EXPECT_EQ(ids(sampling, {"--greedy"}), greedy);
  EXPECT_NE(ids(sampling, {"--seed", "1"}), ids(sampling, {"--seed", "2"}));
  ExpectErrorLine(RunModelkit({"generate", "-m", sampling.string(), "--prompt-ids", "1", "--greedy", "--do-sample"}), 2,
                  "--greedy");
}

// SIGINT stops generation between steps: the process exits normally with 130 soon after the signal, stdout keeps the
// text streamed so far and ends with a newline, and stderr reports no error. The bundle's context (131072) lets
// --max-new-tokens 130000 run for minutes (about 1 ms per step on a 2-core VM), so an ignored signal shows as a
// timeout or exit 0, and dying of the signal shows as `signal`.
TEST_F(GenerateCliTest, InterruptStopsBetweenStepsWithExit130) {
  TempDir tmp;
  builder::BuildOptions options;
  options.output_dir = tmp.path() / "long";
  options.random = true;
  options.random_spec = TinySpec(builder::Arch::kLlama);
  options.random_spec.vocab_size = 0;
  options.seed = 5;
  options.context_length = 131072;
  options.tokenizer_dir = fs::path(MODELKIT_QWEN3_TOKENIZER_DIR);
  builder::BuildBundle(options);

  const auto child = StartModelkit({"generate", "-m", options.output_dir.string(), "--prompt", "Hello there",
                                    "--ignore-eos", "--max-new-tokens", "130000"});
  ASSERT_TRUE(child->WaitForStdout(1, std::chrono::seconds(120)))
      << "no output before the deadline: " << child->Finish(std::chrono::seconds(1)).stderr_text;
  const std::string before = child->stdout_text();
  const auto signalled = std::chrono::steady_clock::now();
  child->Signal(SIGINT);
  const ProcessResult result = child->Finish(std::chrono::seconds(60));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();

  EXPECT_FALSE(result.timed_out) << "still running 60 s after SIGINT";
  EXPECT_EQ(result.signal, 0) << "ended by signal " << result.signal << " instead of exiting";
  EXPECT_EQ(result.exit_code, 130) << result.stderr_text;
  EXPECT_LT(seconds, 5.0) << "took " << seconds << " s to stop after SIGINT";
  EXPECT_EQ(result.stdout_text.rfind(before, 0), 0u) << "the text streamed before the signal must stay";
  ASSERT_FALSE(result.stdout_text.empty());
  EXPECT_EQ(result.stdout_text.back(), '\n');
  EXPECT_EQ(result.stderr_text.find("error"), std::string::npos) << result.stderr_text;
  EXPECT_EQ(result.stderr_text.find("terminate"), std::string::npos) << result.stderr_text;
}

TEST_F(GenerateCliTest, UsageErrorsExitTwo) {
  ExpectErrorLine(RunModelkit({"generate", "-m", (dir_->path() / "nope").string(), "--prompt", "x"}), 2,
                  "nope' (-m expects a directory holding genai_config.json)");
  ExpectErrorLine(RunModelkit({"generate", "-m", bundle_.string()}), 2, "--prompt");
  ExpectErrorLine(RunModelkit({"generate", "-m", bundle_.string(), "--prompt", "x", "--prompt-ids", "1"}), 2,
                  "exactly one");
  ExpectErrorLine(RunModelkit({"generate", "-m", bundle_.string(), "--prompt-ids", "1,x"}), 2,
                  "--prompt-ids expects comma-separated token ids like 1,2,3; 'x' is not one");
  ExpectErrorLine(RunModelkit({"generate", "-m", bundle_.string(), "--prompt-ids", "1", "--top-p", "2", "--do-sample"}),
                  2, "--top-p: '2' is outside (0, 1]");
  // NaN, negative "unsigned" values and empty names are refused, not wrapped or ignored.
  const auto refused = [&](const std::string& flag, const std::string& value, const std::string& fragment) {
    ExpectErrorLine(RunModelkit({"generate", "-m", bundle_.string(), "--prompt-ids", "1", flag, value}), 2, fragment);
  };
  refused("--temperature", "nan", "--temperature: 'nan' is not a finite number");
  refused("--temperature", "-1", "--temperature: '-1' is outside [0, 100]");
  refused("--top-k", "-5", "--top-k: '-5' is not an integer in [0, 2147483647]");
  refused("--seed", "-1", "--seed: '-1' is not an integer in [0, 18446744073709551615]");
  refused("--repetition-penalty", "0", "--repetition-penalty: '0' is outside (0, 100]");
  refused("--max-new-tokens", "-3", "--max-new-tokens: '-3' is not an integer");
  refused("--ep", "", "--ep: must not be empty");
  ExpectErrorLine(RunModelkit({"generate", "-m", bundle_.string(), "--prompt-file", "/dev/zero"}), 2,
                  "--prompt-file '/dev/zero' is larger than 64 MiB");
}

TEST_F(GenerateCliTest, BadBundlesExitThree) {
  {
    TempDir tmp;
    const fs::path copy = Copy(tmp);
    std::ofstream(copy / "genai_config.json") << "{ not json";
    ExpectErrorLine(RunModelkit({"generate", "-m", copy.string(), "--prompt", "x"}), 3, "genai_config.json");
  }
  {
    TempDir tmp;
    const fs::path copy = Copy(tmp);
    fs::remove(copy / "model.onnx");
    ExpectErrorLine(RunModelkit({"generate", "-m", copy.string(), "--prompt", "x"}), 3, "model.onnx");
  }
  {
    TempDir tmp;
    const fs::path copy = Copy(tmp);
    fs::remove(copy / "tokenizer.json");
    ExpectErrorLine(RunModelkit({"generate", "-m", copy.string(), "--prompt", "x"}), 3, "tokenizer");
  }
}

}  // namespace
}  // namespace modelkit::test
