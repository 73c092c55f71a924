// The GenaiSession's compile cache and derived bundle as users meet them: artifacts for every EP kept side by side
// and listed/removed with `modelkit cache`, the size/age bound, bundles that are moved or copied (checked with the
// files the process really opens, through strace), warnings printed as they arise and before a failing load, the
// exit status of an EP this machine cannot run, and tokenizer-less bundles run on token ids.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "modelkit/builder/bundle_builder.h"
#include "support/build_fixtures.h"
#include "support/cli.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const std::string kCatalog = MODELKIT_SIM_NPU_CATALOG;
const std::string kPromptIds = "1,17,42,99,5,6,7,8";

class GenaiCacheCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    builder::BuildOptions options;
    options.random = true;
    options.random_spec = TinySpec(builder::Arch::kQwen3);
    options.random_spec.vocab_size = 0;  // follow the tokenizer
    options.seed = 5;
    options.context_length = 64;
    options.tokenizer_dir = fs::path(MODELKIT_QWEN3_TOKENIZER_DIR);
    options.output_dir = dir_->path() / "pipeline";
    options.layout = builder::Layout::kPipeline;
    options.ep = "simnpu";
    builder::BuildBundle(options);
    options.output_dir = dir_->path() / "no_tokenizer";
    options.layout = builder::Layout::kFlat;
    options.ep.clear();
    options.tokenizer_dir.reset();
    options.random_spec.vocab_size = 300;
    builder::BuildBundle(options);
  }
  static void TearDownTestSuite() { delete dir_; }

  void SetUp() override {
    bundle_ = tmp_.path() / "b1";
    fs::copy(dir_->path() / "pipeline", bundle_, fs::copy_options::recursive);
  }

  // `modelkit generate` on the fixed prompt ids; `prefix` runs it under another program (strace).
  static ProcessResult Generate(const fs::path& bundle, const std::vector<std::string>& extra,
                                const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> args = {"generate",         "-m",    bundle.string(), "--prompt-ids", kPromptIds,
                                     "--max-new-tokens", "6",     "--ignore-eos",  "-f",           "json",
                                     "--ep-catalog",     kCatalog};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunModelkit(args, env);
  }
  static Json Ids(const ProcessResult& result) {
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return result.exit_code == 0 ? Json::parse(result.stdout_text)["generated_ids"] : Json();
  }

  // `perf -v --compile` on the bundle with `ep`: the outcome of each stage ("compiled", "reused", ...).
  std::map<std::string, std::string> CompileOutcomes(const std::string& ep,
                                                     const std::map<std::string, std::string>& env = {}) {
    const ProcessResult result = RunModelkit({"perf",
                                              "-m",
                                              bundle_.string(),
                                              "--ep",
                                              ep,
                                              "--compile",
                                              "-v",
                                              "--iterations",
                                              "1",
                                              "--warmup",
                                              "0",
                                              "--max-new-tokens",
                                              "2",
                                              "--ep-catalog",
                                              kCatalog,
                                              "-f",
                                              "json",
                                              "-o",
                                              (tmp_.path() / "r.json").string(),
                                              "--overwrite"},
                                             env);
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    std::map<std::string, std::string> outcomes;
    std::istringstream lines(result.stderr_text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("stage ", 0) != 0) continue;
      std::istringstream words(line.substr(6));
      std::string stage, outcome;
      words >> stage >> outcome;
      outcomes[stage.substr(0, stage.size() - 1)] = outcome;  // "ctx:" -> "ctx"
    }
    return outcomes;
  }

  Json CacheList(const fs::path& bundle) {
    const ProcessResult result =
        RunModelkit({"cache", "list", "-m", bundle.string(), "-f", "json", "--ep-catalog", kCatalog});
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return result.exit_code == 0 ? Json::parse(result.stdout_text) : Json::object();
  }
  std::multiset<std::string> CachedStagesAndEps(const fs::path& bundle) {
    std::multiset<std::string> cached;
    const Json list = CacheList(bundle);
    for (const Json& entry : list["entries"]) {
      cached.insert(entry["stage"].get<std::string>() + " " + entry["ep"].get<std::string>());
    }
    return cached;
  }

  static TempDir* dir_;
  TempDir tmp_;
  fs::path bundle_;
};

TempDir* GenaiCacheCliTest::dir_ = nullptr;

const std::map<std::string, std::string> kCompiled = {{"ctx", "compiled"}, {"iter", "compiled"}};
const std::map<std::string, std::string> kReused = {{"ctx", "reused"}, {"iter", "reused"}};

TEST_F(GenaiCacheCliTest, EveryEpKeepsItsArtifactsAcrossRunsThatDoNotUseThem) {
  EXPECT_EQ(CompileOutcomes("simnpu"), kCompiled);
  EXPECT_EQ(CompileOutcomes("simnpu2"), kCompiled);
  EXPECT_EQ(CompileOutcomes("simnpu"), kReused) << "switching back recompiled";
  EXPECT_EQ(Ids(Generate(bundle_, {"--ep", "cpu"})).size(), 6u);  // a CPU run rewrites _compiled/ without them
  EXPECT_EQ(CompileOutcomes("simnpu"), kReused) << "a CPU run in between dropped the cache";
  EXPECT_EQ(CompileOutcomes("simnpu2"), kReused);

  const Json list = CacheList(bundle_);
  EXPECT_EQ(CachedStagesAndEps(bundle_),
            (std::multiset<std::string>{"ctx simnpu", "iter simnpu", "ctx simnpu2", "iter simnpu2"}));
  for (const Json& entry : list["entries"]) {
    EXPECT_EQ(entry["valid"], true) << entry.dump();
    EXPECT_EQ(entry["in_use"], entry["ep"] == "simnpu2") << entry.dump() << ": the last run used simnpu2";
    EXPECT_GT(entry["bytes"].get<int64_t>(), 0);
  }
  // An entry whose source changed is listed as no longer valid, with the reason.
  {
    std::fstream data(bundle_ / "iter.onnx.data", std::ios::in | std::ios::out | std::ios::binary);
    data.seekp(0);
    data.put('\x7f');
  }
  const Json after_change = CacheList(bundle_);
  for (const Json& entry : after_change["entries"]) {
    EXPECT_EQ(entry["valid"], entry["stage"] == "ctx") << entry.dump();
    if (entry["stage"] == "iter") {
      EXPECT_EQ(entry["stale_reason"], "iter.onnx.data changed content");
    }
  }
  const ProcessResult text = RunModelkit({"cache", "list", "-m", bundle_.string(), "--ep-catalog", kCatalog});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("4 artifact(s)"), std::string::npos) << text.stdout_text;
  EXPECT_NE(text.stdout_text.find("no: iter.onnx.data changed content"), std::string::npos) << text.stdout_text;

  // Removal: one EP, then everything; the in-use removal leaves a tree the next run rebuilds, and it still runs.
  const ProcessResult removed =
      RunModelkit({"cache", "remove", "-m", bundle_.string(), "--ep", "simnpu2", "--ep-catalog", kCatalog});
  ASSERT_EQ(removed.exit_code, 0) << removed.stderr_text;
  EXPECT_NE(removed.stdout_text.find("Removed 2 cached artifact(s)"), std::string::npos) << removed.stdout_text;
  EXPECT_EQ(CachedStagesAndEps(bundle_), (std::multiset<std::string>{"ctx simnpu", "iter simnpu"}));
  EXPECT_EQ(Ids(Generate(bundle_, {"--ep", "simnpu2"})).size(), 6u);
  ASSERT_EQ(RunModelkit({"cache", "remove", "-m", bundle_.string(), "--stage", "iter"}).exit_code, 0);
  EXPECT_EQ(CachedStagesAndEps(bundle_), std::multiset<std::string>{"ctx simnpu"});
  ASSERT_EQ(RunModelkit({"cache", "remove", "-m", bundle_.string()}).exit_code, 0);
  EXPECT_TRUE(CacheList(bundle_)["entries"].empty());
  ExpectErrorLine(RunModelkit({"cache", "remove", "-m", bundle_.string(), "--ep", "nosuch"}), 2, "nosuch");
  ExpectErrorLine(RunModelkit({"cache", "list", "-m", (tmp_.path() / "none").string()}), 2, "none");
}

TEST_F(GenaiCacheCliTest, TheCacheIsBoundedBySizeAndAge) {
  EXPECT_EQ(CompileOutcomes("simnpu"), kCompiled);
  // A limit smaller than one entry: the entries the run uses stay, every other goes.
  EXPECT_EQ(CompileOutcomes("simnpu2", {{"MODELKIT_COMPILE_CACHE_MAX_SIZE", "1K"}}), kCompiled);
  EXPECT_EQ(CachedStagesAndEps(bundle_), (std::multiset<std::string>{"ctx simnpu2", "iter simnpu2"}));
  // A limit that holds both: nothing is evicted.
  EXPECT_EQ(CompileOutcomes("simnpu", {{"MODELKIT_COMPILE_CACHE_MAX_SIZE", "100M"}}), kCompiled);
  EXPECT_EQ(CachedStagesAndEps(bundle_).size(), 4u);
  // Age 0 days: whatever this run does not use was unused for longer than that.
  EXPECT_EQ(CompileOutcomes("simnpu2", {{"MODELKIT_COMPILE_CACHE_MAX_AGE_DAYS", "0"}}), kReused);
  EXPECT_EQ(CachedStagesAndEps(bundle_), (std::multiset<std::string>{"ctx simnpu2", "iter simnpu2"}));
  ExpectErrorLine(Generate(bundle_, {"--ep", "simnpu", "--compile"}, {{"MODELKIT_COMPILE_CACHE_MAX_SIZE", "lots"}}), 2,
                  "MODELKIT_COMPILE_CACHE_MAX_SIZE='lots'");
}

// The files a process opened, as the kernel resolved them (strace -y annotates each returned descriptor).
std::vector<std::string> OpenedFiles(const fs::path& log) {
  std::vector<std::string> files;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.rfind(" = ");
    const size_t open = line.find('<', eq == std::string::npos ? line.size() : eq);
    if (line.find("open") == std::string::npos || open == std::string::npos) continue;
    files.push_back(line.substr(open + 1, line.rfind('>') - open - 1));
  }
  return files;
}

TEST_F(GenaiCacheCliTest, MovedAndCopiedBundlesUseTheirOwnFiles) {
  ASSERT_TRUE(fs::exists("/usr/bin/strace")) << "strace is missing: run scripts/setup.sh";
  const Json expected = Ids(Generate(bundle_, {"--ep", "cpu"}));
  ASSERT_EQ(Ids(Generate(bundle_, {"--ep", "simnpu", "--compile"})), expected);

  // Moved: the same run as the last one before the move (a derived bundle that looks up to date) resolves its
  // files inside the new place.
  const fs::path moved = tmp_.path() / "b4moved";
  fs::rename(bundle_, moved);
  EXPECT_EQ(Ids(Generate(moved, {"--ep", "simnpu", "--compile"})), expected);
  EXPECT_EQ(Ids(Generate(moved, {"--ep", "cpu"})), expected);
  EXPECT_EQ(Ids(Generate(moved, {"--ep", "simnpu", "--compile"})), expected);

  // Copied (cp -a keeps links as links): runs on the copy open only the copy's files, the first one being the run
  // the copied derived bundle was written for.
  const fs::path copy = tmp_.path() / "b5";
  ASSERT_EQ(RunProcess({"/bin/cp", "-a", moved.string(), copy.string()}).exit_code, 0);
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{"--ep", "simnpu", "--compile"}, {"--ep", "cpu"}, {}}) {
    const fs::path log = tmp_.path() / "strace.log";
    std::vector<std::string> args = {"/usr/bin/strace",
                                     "-f",
                                     "-y",
                                     "-qq",
                                     "-e",
                                     "trace=open,openat",
                                     "-o",
                                     log.string(),
                                     MODELKIT_BINARY,
                                     "generate",
                                     "-m",
                                     copy.string(),
                                     "--prompt-ids",
                                     kPromptIds,
                                     "--max-new-tokens",
                                     "6",
                                     "--ignore-eos",
                                     "-f",
                                     "json",
                                     "--ep-catalog",
                                     kCatalog};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProcessResult result = RunProcess(args, {{"MODELKIT_EP_CATALOG", "none"}});
    EXPECT_EQ(Ids(result), expected) << ::testing::PrintToString(flags);
    const std::vector<std::string> opened = OpenedFiles(log);
    bool opened_weights = false;
    for (const std::string& file : opened) {
      EXPECT_EQ(file.find(fs::canonical(moved).string() + "/"), std::string::npos)
          << "a run on the copy opened the original's " << file << " " << ::testing::PrintToString(flags);
      opened_weights |= file.find(fs::canonical(copy).string() + "/ctx.onnx") == 0;
    }
    if (flags.size() == 2) {  // --ep cpu loads ctx.onnx itself
      EXPECT_TRUE(opened_weights) << "the trace saw no bundle file: it checks nothing";
    }
  }
}

TEST_F(GenaiCacheCliTest, WarningsComeBeforeTheRunAndBeforeALoadError) {
  // A compile that fails: its warning is printed once, before the benchmark's report, and names the error once.
  std::ifstream in(bundle_ / "genai_config.json");
  Json config = Json::parse(in);
  in.close();
  for (const char* stage : {"ctx", "iter"}) {
    Json& options = config["model"]["decoder"]["pipeline"][0].at(stage)["session_options"]["provider_options"];
    ASSERT_TRUE(options[0].contains("simnpu")) << options.dump();
    options[0]["simnpu"]["fail_compile"] = "1";
  }
  std::ofstream(bundle_ / "genai_config.json") << config.dump(2);
  const ProcessResult perf =
      RunModelkit({"perf", "-m", bundle_.string(), "--compile", "--iterations", "1", "--warmup", "0",
                   "--max-new-tokens", "2", "--ep-catalog", kCatalog, "-o", (tmp_.path() / "r.json").string()});
  ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
  const size_t warning = perf.stderr_text.find("warning: compiling stage 'ctx' for simnpu failed (");
  ASSERT_NE(warning, std::string::npos) << perf.stderr_text;
  const std::string line = perf.stderr_text.substr(warning, perf.stderr_text.find('\n', warning) - warning);
  EXPECT_EQ(line.find("fault injected"), line.rfind("fault injected")) << "the error repeats: " << line;
  EXPECT_EQ(line.find("error:"), std::string::npos) << line;
  EXPECT_LT(warning, perf.stderr_text.find("Results saved to")) << perf.stderr_text;
  // Every stage failed to compile and nothing was re-routed: the run loaded the bundle itself.
  EXPECT_FALSE(fs::exists(bundle_ / "_compiled")) << "a compile that produced nothing wrote a derived bundle";
  const Json report = Json::parse(std::ifstream(tmp_.path() / "r.json"));
  EXPECT_EQ(report["benchmark_info"]["running_model_path"], bundle_.string());

  // A warning of the override, then a load that fails: both reach the user, in that order.
  std::ofstream(bundle_ / "embeddings.onnx", std::ios::trunc) << "not a model";
  const ProcessResult failed = RunModelkit({"perf", "-m", bundle_.string(), "--ep", "simnpu", "--compile",
                                            "--ep-catalog", kCatalog, "-o", (tmp_.path() / "f.json").string()});
  EXPECT_NE(failed.exit_code, 0);
  const size_t first_warning = failed.stderr_text.find("warning: ");
  const size_t error = failed.stderr_text.find("error: ");
  ASSERT_NE(first_warning, std::string::npos) << failed.stderr_text;
  ASSERT_NE(error, std::string::npos) << failed.stderr_text;
  EXPECT_LT(first_warning, error) << failed.stderr_text;
  EXPECT_NE(failed.stderr_text.find((bundle_ / "embeddings.onnx").string()), std::string::npos)
      << "the error names the user's file: " << failed.stderr_text;
  EXPECT_EQ(failed.stderr_text.find("_compiled/embeddings.onnx"), std::string::npos) << failed.stderr_text;
  EXPECT_FALSE(fs::exists(tmp_.path() / "f.json"));
}

TEST_F(GenaiCacheCliTest, UnusableEpIsAUsageErrorWithOrWithoutDevice) {
  const std::vector<std::string> perf = {"perf", "-m", bundle_.string(), "--iterations", "1", "--ep-catalog", kCatalog};
  std::string message;
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{
           {"--ep", "qnn"}, {"--ep", "qnn", "--device", "auto"}, {"--ep", "qnn", "--device", "npu"}}) {
    std::vector<std::string> args = perf;
    args.insert(args.end(), flags.begin(), flags.end());
    const ProcessResult result = RunModelkit(args);
    ExpectErrorLine(result, 2, "requested EP 'QNNExecutionProvider' is not available on this machine");
    if (message.empty()) message = result.stderr_text;
    EXPECT_EQ(result.stderr_text, message) << "the same message whatever --device says";
  }
  std::vector<std::string> dml = perf;
  dml.insert(dml.end(), {"--ep", "dml"});
  ExpectErrorLine(RunModelkit(dml), 2, "'DmlExecutionProvider'");
  ExpectErrorLine(RunModelkit({"perf", "-m", bundle_.string(), "--runtime", "onnx"}), 2,
                  "is a genai bundle, which --runtime onnx cannot run");
  EXPECT_FALSE(fs::exists(bundle_ / "_compiled"));
}

TEST_F(GenaiCacheCliTest, BundleWithoutTokenizerRunsOnTokenIds) {
  const fs::path bundle = dir_->path() / "no_tokenizer";
  ASSERT_FALSE(fs::exists(bundle / "tokenizer.json"));
  const Json ids = Ids(Generate(bundle, {}));
  ASSERT_EQ(ids.size(), 6u);
  const ProcessResult text = RunModelkit(
      {"generate", "-m", bundle.string(), "--prompt-ids", kPromptIds, "--max-new-tokens", "6", "--ignore-eos"});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  std::string expected_text;
  for (const Json& id : ids) expected_text += (expected_text.empty() ? "" : ",") + std::to_string(id.get<int>());
  EXPECT_EQ(text.stdout_text, expected_text + "\n");
  EXPECT_NE(text.stderr_text.find("no tokenizer"), std::string::npos);

  const ProcessResult perf =
      RunModelkit({"perf", "-m", bundle.string(), "--prompt-ids", kPromptIds, "--iterations", "1", "--warmup", "0",
                   "--max-new-tokens", "6", "--ignore-eos", "-f", "json", "-o", (tmp_.path() / "p.json").string()});
  ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
  const Json report = Json::parse(perf.stdout_text);
  EXPECT_EQ(report["benchmark_info"]["prompt_tokens"], 8);
  EXPECT_EQ(report["benchmark_info"]["prompt_ids"], Json::parse("[1,17,42,99,5,6,7,8]"));
  EXPECT_EQ(report["benchmark_info"]["generated_tokens"], 6);
  // Text needs the tokenizer: the message names the user's bundle, also through an override.
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{{}, {"--ep", "cpu"}}) {
    std::vector<std::string> args = {"generate", "-m", bundle.string(), "--prompt", "hi"};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProcessResult result = RunModelkit(args);
    ExpectErrorLine(result, 3, "has no tokenizer: " + (bundle / "tokenizer.json").string() + " is missing");
  }
  ExpectErrorLine(RunModelkit({"perf", "-m", bundle.string(), "--prompt", "x", "--prompt-ids", "1"}), 2,
                  "--prompt-ids");
}

}  // namespace
}  // namespace modelkit::test
