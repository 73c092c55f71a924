// GenaiSession on real bundles, real ORT and the simulated NPU plugin, in-process so ORT itself can say where each
// stage's nodes ran (session.record_ep_graph_assignment_info) and the plugin's counters say what it compiled.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>

#include "modelkit/base/error.h"
#include "modelkit/bundle/derived_bundle.h"
#include "modelkit/compile/compile_cache.h"
#include "modelkit/generate/generator.h"
#include "modelkit/session/genai_session.h"
#include "support/generate_fixtures.h"
#include "support/sim_npu.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using compile::StageCompileOutcome;

const std::vector<int32_t> kPrompt = {1, 17, 42, 99, 5};
constexpr int kNewTokens = 24;

// The plugins of the simulated NPU's example catalog (simnpu, simnpu2); registering them is already done by the
// test environment, so discovery finds them registered.
std::vector<device::PluginLibrary> SimNpuPlugins() {
  return device::LoadPluginCatalogFile(SimNpuLibrary().parent_path() / "sim_npu_catalog.json");
}

// Every stage records ORT's node placement; `ctx_options` become the ctx/iter stages' simnpu options.
void Instrument(const fs::path& bundle, const Json& ctx_options = Json::object()) {
  EditGenaiConfig(bundle, [&](Json& config) {
    for (Json& entry : config["model"]["decoder"]["pipeline"]) {
      for (auto& [name, stage] : entry.items()) {
        stage["session_options"]["session.record_ep_graph_assignment_info"] = "1";
        if (name == "ctx" || name == "iter") {
          Json provider = Json::object();
          provider["simnpu"] = ctx_options;
          stage["session_options"]["provider_options"] = Json::array();
          stage["session_options"]["provider_options"].push_back(provider);
        }
      }
    }
  });
}

class GenaiSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterSimNpu();
    builder::BuildOptions options = TinyGenerateOptions(tmp_.path() / "pipeline", builder::Layout::kPipeline);
    options.ep = "simnpu";
    reference_tokens_ = ReferenceGreedy(BuildWithReference(options), kPrompt, kNewTokens);
    bundle_ = options.output_dir;
    Instrument(bundle_);
  }

  session::GenaiSessionOptions Options(const std::string& ep = "", const std::string& device = "",
                                       bool compile = false) const {
    session::GenaiSessionOptions options;
    options.bundle_dir = bundle_;
    options.ep = ep;
    if (!device.empty()) options.device = device::DeviceRequest::Parse(device);
    options.compile = compile;
    options.compiler.program = MODELKIT_BINARY;
    options.compiler.extra_args = {"--ep-catalog", (SimNpuLibrary().parent_path() / "sim_npu_catalog.json").string()};
    options.compiler.timeout = std::chrono::seconds(60);
    options.load_tokenizer = false;
    return options;
  }

  static std::vector<int32_t> Generate(const session::GenaiSession& session) {
    generate::GenerateOptions greedy;
    greedy.max_new_tokens = kNewTokens;
    greedy.ignore_eos = true;
    return generate::Generate(session.model(), kPrompt, greedy).generated_ids;
  }

  // ORT's placement: stage name -> EP names that got nodes.
  static std::map<std::string, std::set<std::string>> Placement(const session::GenaiSession& session) {
    std::map<std::string, std::set<std::string>> placement;
    for (const generate::LoadedStage& stage : session.model().stages()) {
      for (const auto& [ep, count] : NodesPerEp(*stage.session)) {
        if (count > 0) placement[stage.config.name].insert(ep);
      }
    }
    return placement;
  }

  std::map<std::string, StageCompileOutcome> Outcomes(const session::GenaiSession& session) const {
    std::map<std::string, StageCompileOutcome> outcomes;
    for (const compile::StageCompileReport& report : session.compile_reports()) outcomes[report.stage] = report.outcome;
    return outcomes;
  }

  TempDir tmp_;
  fs::path bundle_;
  std::vector<int32_t> reference_tokens_;
};

TEST_F(GenaiSessionTest, EpSimNpuRunsCtxIterOnTheNpuAndTheRestOnCpu) {
  session::PluginMachineAccess machine(SimNpuPlugins());
  session::GenaiSession session(Options("simnpu"), machine);
  session.Load();
  EXPECT_EQ(session.effective_ep().override_alias, "simnpu");
  const auto placement = Placement(session);
  const std::set<std::string> cpu = {"CPUExecutionProvider"};
  EXPECT_EQ(placement.at("embeddings"), cpu);
  EXPECT_EQ(placement.at("lm_head"), cpu);
  EXPECT_TRUE(placement.at("ctx").count(kSimNpu)) << "ctx ran nothing on the simulated NPU";
  EXPECT_TRUE(placement.at("iter").count(kSimNpu)) << "iter ran nothing on the simulated NPU";
  EXPECT_EQ(Generate(session), reference_tokens_);
}

TEST_F(GenaiSessionTest, EpCpuRunsEverythingOnCpuWithTheSameTokens) {
  session::PluginMachineAccess machine(SimNpuPlugins());
  session::GenaiSession session(Options("cpu"), machine);
  session.Load();
  EXPECT_EQ(session.effective_ep().ReportName(), "cpu");
  EXPECT_EQ(session.effective_device(), "cpu");
  for (const auto& [stage, eps] : Placement(session)) {
    EXPECT_EQ(eps, std::set<std::string>{"CPUExecutionProvider"}) << stage;
  }
  EXPECT_EQ(Generate(session), reference_tokens_);
  // The original bundle still routes ctx/iter to the NPU: the override wrote _compiled/ only.
  std::ifstream in(bundle_ / "genai_config.json");
  EXPECT_TRUE(
      Json::parse(in)["model"]["decoder"]["pipeline"][0]["ctx"]["session_options"]["provider_options"][0].contains(
          "simnpu"));
}

TEST_F(GenaiSessionTest, DeviceNpuResolvesToTheSimulatedNpu) {
  session::PluginMachineAccess machine(SimNpuPlugins());
  session::GenaiSession session(Options("", "npu"), machine);
  session.Load();
  EXPECT_EQ(session.ep(), "simnpu");
  EXPECT_EQ(session.effective_ep().ReportName(), "simnpu");
  EXPECT_EQ(session.effective_device(), "npu");
}

TEST_F(GenaiSessionTest, RespectingACpuBundleRegistersNoPlugin) {
  builder::BuildOptions flat = TinyGenerateOptions(tmp_.path() / "flat", builder::Layout::kFlat);
  builder::BuildBundle(flat);
  session::PluginMachineAccess machine(SimNpuPlugins());
  session::GenaiSessionOptions options = Options();
  options.bundle_dir = flat.output_dir;
  session::GenaiSession session(options, machine);
  session.Load();
  EXPECT_FALSE(machine.Discovered()) << "plugin EPs were registered for a bundle that runs on CPU";
  EXPECT_EQ(session.load_dir(), flat.output_dir);

  session::PluginMachineAccess machine2(SimNpuPlugins());
  session::GenaiSession npu(Options(), machine2);
  npu.Load();
  EXPECT_TRUE(machine2.Discovered());
  EXPECT_EQ(npu.load_dir(), bundle_) << "respecting the config must load the bundle itself";
}

TEST_F(GenaiSessionTest, UnknownEpIsRejectedBeforeTheBundleIsLookedAt) {
  session::PluginMachineAccess machine(SimNpuPlugins());
  session::GenaiSessionOptions options = Options("nosuch");
  options.bundle_dir = tmp_.path() / "missing";
  try {
    session::GenaiSession session(options, machine);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(error.what()).find("nosuch"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("simnpu"), std::string::npos) << "valid names not listed";
  }
}

TEST_F(GenaiSessionTest, CompileCacheCompilesReusesAndRecompilesOnChange) {
  Instrument(bundle_, {{"compile_delay_ms", "1500"}});
  const auto load = [&](const std::string& ep = "") {
    session::PluginMachineAccess machine(SimNpuPlugins());
    auto session = std::make_unique<session::GenaiSession>(Options(ep, "", /*compile=*/true), machine);
    session->Load();
    return session;
  };
  const auto compiled = load();
  EXPECT_EQ(Outcomes(*compiled),
            (std::map<std::string, StageCompileOutcome>{{"ctx", StageCompileOutcome::kCompiled},
                                                        {"iter", StageCompileOutcome::kCompiled}}));
  EXPECT_EQ(Generate(*compiled), reference_tokens_);
  const auto placement = Placement(*compiled);
  EXPECT_TRUE(placement.at("ctx").count(kSimNpu));

  const auto reused = load();
  EXPECT_EQ(Outcomes(*reused), (std::map<std::string, StageCompileOutcome>{{"ctx", StageCompileOutcome::kReused},
                                                                           {"iter", StageCompileOutcome::kReused}}));
  EXPECT_GT(compiled->load_timings().total_ns, 3 * reused->load_timings().total_ns)
      << "a warm cache should load far faster than compiling (compile_delay_ms 1500 per stage)";
  EXPECT_EQ(Generate(*reused), reference_tokens_);

  // Touched but unchanged: the content hash proves it fresh.
  fs::last_write_time(bundle_ / "ctx.onnx.data", fs::file_time_type::clock::now());
  EXPECT_EQ(Outcomes(*load())["ctx"], StageCompileOutcome::kReused);

  // Changed content: that stage recompiles, the other is reused.
  {
    std::fstream data(bundle_ / "iter.onnx.data", std::ios::in | std::ios::out | std::ios::binary);
    data.seekp(0);
    data.put('\x7f');
  }
  const auto changed = load();
  EXPECT_EQ(Outcomes(*changed)["iter"], StageCompileOutcome::kCompiled);
  EXPECT_EQ(Outcomes(*changed)["ctx"], StageCompileOutcome::kReused);

  // Another EP never reuses simnpu's artifact.
  const auto other = load("simnpu2");
  EXPECT_EQ(Outcomes(*other)["ctx"], StageCompileOutcome::kCompiled);
  std::set<std::string> cached;
  for (const compile::CacheEntry& entry : compile::ListCacheEntries(bundle_ / bundle::kDerivedDirName)) {
    cached.insert(entry.stage + " " + entry.identity.ep);
  }
  EXPECT_EQ(cached, (std::set<std::string>{"ctx " + std::string(kSimNpu), "iter " + std::string(kSimNpu),
                                           "ctx " + std::string(kSimNpu2), "iter " + std::string(kSimNpu2)}))
      << "both EPs' artifacts are kept side by side";
  EXPECT_TRUE(Placement(*other).at("ctx").count(kSimNpu2));
  EXPECT_FALSE(Placement(*other).at("ctx").count(kSimNpu));
}

TEST_F(GenaiSessionTest, ChangedOptionsRecompile) {
  const auto outcomes_with = [&](const Json& options) {
    Instrument(bundle_, options);
    session::PluginMachineAccess machine(SimNpuPlugins());
    session::GenaiSession session(Options("", "", /*compile=*/true), machine);
    session.Load();
    return Outcomes(session);
  };
  EXPECT_EQ(outcomes_with({{"op_deny", "Softmax"}})["ctx"], StageCompileOutcome::kCompiled);
  EXPECT_EQ(outcomes_with({{"op_deny", "Softmax"}})["ctx"], StageCompileOutcome::kReused);
  EXPECT_EQ(outcomes_with({{"op_deny", "Gelu"}})["ctx"], StageCompileOutcome::kCompiled);
}

TEST_F(GenaiSessionTest, FailingCrashingAndHangingCompilersFallBackToUncompiledStages) {
  for (const Json& options :
       {Json{{"fail_compile", "1"}}, Json{{"crash_compile", "1"}}, Json{{"compile_delay_ms", "5000"}}}) {
    fs::remove_all(bundle_ / bundle::kDerivedDirName);
    Instrument(bundle_, options);
    session::PluginMachineAccess machine(SimNpuPlugins());
    session::GenaiSessionOptions session_options = Options("", "", /*compile=*/true);
    session_options.compiler.timeout = std::chrono::seconds(1);
    session::GenaiSession session(session_options, machine);
    const auto start = std::chrono::steady_clock::now();
    session.Load();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << options.dump();
    EXPECT_EQ(Outcomes(session)["ctx"], StageCompileOutcome::kFailed) << options.dump();
    EXPECT_FALSE(fs::exists(bundle_ / bundle::kDerivedDirName / "ctx_simnpu_ctx.onnx")) << options.dump();
    ASSERT_FALSE(session.warnings().empty());
    EXPECT_NE(session.warnings().front().find("runs uncompiled"), std::string::npos) << session.warnings().front();
    if (options.contains("compile_delay_ms")) continue;  // a JIT compile with the same delay is correct, only slow
    EXPECT_EQ(Generate(session), reference_tokens_) << options.dump();
  }
}

// Salvage, as winml-cli does it: the compiler aborts at exit, after it wrote a complete EPContext model. That model is
// used (the plugin restores contexts instead of compiling), with a warning, and it is cached like a compiled one.
TEST_F(GenaiSessionTest, CompilerCrashingAfterWritingItsModelIsSalvaged) {
  Instrument(bundle_, {{"crash_at_exit", "1"}});
  const auto load = [&] {
    session::PluginMachineAccess machine(SimNpuPlugins());
    auto session = std::make_unique<session::GenaiSession>(Options("", "", /*compile=*/true), machine);
    session->Load();
    return session;
  };
  ResetSimNpuCounters();
  const auto salvaged = load();
  EXPECT_EQ(Outcomes(*salvaged),
            (std::map<std::string, StageCompileOutcome>{{"ctx", StageCompileOutcome::kSalvaged},
                                                        {"iter", StageCompileOutcome::kSalvaged}}));
  ASSERT_EQ(salvaged->warnings().size(), 2u) << ::testing::PrintToString(salvaged->warnings());
  EXPECT_NE(salvaged->warnings().front().find("crashed (signal 6) after writing a complete EPContext model"),
            std::string::npos)
      << salvaged->warnings().front();
  const SimNpuCounters salvaged_counters = ReadSimNpuCounters();
  EXPECT_GT(salvaged_counters.loaded_contexts, 0) << "the stages did not load the salvaged EPContext models";
  EXPECT_EQ(Generate(*salvaged), reference_tokens_);

  ResetSimNpuCounters();
  const auto reused = load();
  EXPECT_EQ(Outcomes(*reused), (std::map<std::string, StageCompileOutcome>{{"ctx", StageCompileOutcome::kReused},
                                                                           {"iter", StageCompileOutcome::kReused}}));
  EXPECT_TRUE(reused->warnings().empty());
  // Loading the cached models restores and compiles exactly what loading the salvaged ones did.
  EXPECT_EQ(ReadSimNpuCounters().loaded_contexts, salvaged_counters.loaded_contexts);
  EXPECT_EQ(ReadSimNpuCounters().compiled_partitions, salvaged_counters.compiled_partitions);
}

}  // namespace
}  // namespace modelkit::test
