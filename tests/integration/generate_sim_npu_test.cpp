// Bundles on the simulated NPU plugin EP generate the same tokens as on CPU, GroupQueryAttention included: the
// pipeline with its ctx/iter stages on the NPU (as the builder writes them with --ep simnpu) and the flat decoder,
// with the shared-buffer and the growing KV cache; the NPU really runs partitions.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "modelkit/base/error.h"
#include "modelkit/device/ep_catalog.h"
#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"
#include "support/generate_fixtures.h"
#include "support/sim_npu.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

device::EpCatalog CatalogWithSimNpu() {
  device::EpCatalog catalog = device::EpCatalog::BuiltIn();
  device::EpRow row;
  row.name = kSimNpu;
  row.aliases = {"simnpu"};
  row.devices = {device::DeviceKind::kNpu};
  row.ep_context = true;
  row.device_type_option = true;
  row.plugin_library = SimNpuLibrary();
  row.registration_name = "SimNpu.virtual";
  catalog.AddPluginRow(row, "test");
  return catalog;
}

// Loads `bundle` through the catalog with the simulated NPU row; the NPU's claimed-node count is left in
// `claimed_nodes`.
std::unique_ptr<generate::Model> LoadOnSimNpu(const std::filesystem::path& bundle, const device::EpCatalog& catalog,
                                              int64_t& claimed_nodes) {
  generate::LoadOptions load;
  load.catalog = &catalog;
  load.load_tokenizer = false;
  ResetSimNpuCounters();
  auto model = generate::Model::Load(bundle, load);
  claimed_nodes = ReadSimNpuCounters().claimed_nodes;
  return model;
}

// Sets the simulated NPU with `options` as the provider of the sessions that `stages` name (".": the flat decoder).
void SetSimNpuProvider(const std::filesystem::path& bundle, const std::vector<std::string>& stages,
                       const nlohmann::ordered_json& options) {
  EditGenaiConfig(bundle, [&](auto& config) {
    for (const std::string& stage : stages) {
      auto& decoder = config["model"]["decoder"];
      auto& session = stage == "." ? decoder["session_options"] : decoder["pipeline"][0][stage]["session_options"];
      session["provider_options"] = nlohmann::ordered_json::array({{{"simnpu", options}}});
    }
  });
}

// Greedy tokens of the bundle at `npu` (its NPU stages given by `stages`) equal those of the same bundle at `cpu` on
// the CPU EP and the reference's, for two prompts and 32 new tokens, with GroupQueryAttention inside the NPU's
// partitions. With the shared-buffer KV cache (search.past_present_share_buffer, the builder's default) one
// max-length buffer is bound as both past and present and must hold every step's new rows after the partition ran.
// The partitions read weights from the bundle's external data file at every run (GQA's cos/sin caches, the
// embedding table): they must be the file's data, not what ORT lent the plugin while compiling.
void ExpectSimNpuTokensEqualCpu(const std::filesystem::path& cpu, const std::filesystem::path& npu,
                                const std::vector<std::string>& stages, const ReferenceDecoder& reference) {
  const device::EpCatalog catalog = CatalogWithSimNpu();
  int64_t claimed_without_gqa = 0;
  SetSimNpuProvider(npu, stages, {{"op_deny", "GroupQueryAttention"}});
  LoadOnSimNpu(npu, catalog, claimed_without_gqa);
  SetSimNpuProvider(npu, stages, nlohmann::ordered_json::object());
  int64_t claimed = 0;
  const auto npu_model = LoadOnSimNpu(npu, catalog, claimed);
  EXPECT_GT(claimed, claimed_without_gqa) << "the simulated NPU did not take GroupQueryAttention";

  generate::LoadOptions load;
  load.load_tokenizer = false;
  const auto cpu_model = generate::Model::Load(cpu, load);
  generate::GenerateOptions greedy;
  greedy.max_new_tokens = 32;
  greedy.ignore_eos = true;
  for (const std::vector<int32_t>& prompt : {std::vector<int32_t>{1, 17, 42, 99, 5}, std::vector<int32_t>{200, 3}}) {
    const auto on_cpu = generate::Generate(*cpu_model, prompt, greedy);
    const int64_t runs_before = ReadSimNpuCounters().runs;
    const auto on_npu = generate::Generate(*npu_model, prompt, greedy);
    EXPECT_GT(ReadSimNpuCounters().runs, runs_before);
    EXPECT_EQ(on_npu.generated_ids, on_cpu.generated_ids) << "prompt of " << prompt.size();
    EXPECT_EQ(on_cpu.generated_ids, ReferenceGreedy(reference, prompt, 32)) << "prompt of " << prompt.size();
  }
}

// Builds the same weights twice under `tmp` ("cpu", and "npu" whose stages the test routes to the NPU, the pipeline
// one built with --ep simnpu), returning the reference decoder of those weights.
ReferenceDecoder BuildCpuAndNpuBundles(const TempDir& tmp, builder::Layout layout) {
  RegisterSimNpu();
  builder::BuildOptions cpu = TinyGenerateOptions(tmp.path() / "cpu", layout);
  const ReferenceDecoder reference = BuildWithReference(cpu);
  builder::BuildOptions npu = cpu;
  npu.output_dir = tmp.path() / "npu";
  if (layout == builder::Layout::kPipeline) npu.ep = "simnpu";
  builder::BuildBundle(npu);
  return reference;
}

TEST(GenerateSimNpuTest, PipelineOnSimNpuEqualsCpu) {
  TempDir tmp;
  const ReferenceDecoder reference = BuildCpuAndNpuBundles(tmp, builder::Layout::kPipeline);
  ExpectSimNpuTokensEqualCpu(tmp.path() / "cpu", tmp.path() / "npu", {"ctx", "iter"}, reference);
}

TEST(GenerateSimNpuTest, FlatSharedBufferOnSimNpuEqualsCpu) {
  TempDir tmp;
  const ReferenceDecoder reference = BuildCpuAndNpuBundles(tmp, builder::Layout::kFlat);
  ExpectSimNpuTokensEqualCpu(tmp.path() / "cpu", tmp.path() / "npu", {"."}, reference);
}

// The growing KV cache (present is a new, longer buffer each step) on the NPU as well.
TEST(GenerateSimNpuTest, FlatGrowingKvOnSimNpuEqualsCpu) {
  TempDir tmp;
  const ReferenceDecoder reference = BuildCpuAndNpuBundles(tmp, builder::Layout::kFlat);
  for (const char* bundle : {"cpu", "npu"}) {
    EditGenaiConfig(tmp.path() / bundle, [](auto& config) { config["search"]["past_present_share_buffer"] = false; });
  }
  ExpectSimNpuTokensEqualCpu(tmp.path() / "cpu", tmp.path() / "npu", {"."}, reference);
}

// With everything on the simulated NPU the stages load through the catalog's plugin row, partitions run and
// generation repeats.
TEST(GenerateSimNpuTest, PipelineRunsOnSimNpu) {
  RegisterSimNpu();
  TempDir tmp;
  builder::BuildOptions npu = TinyGenerateOptions(tmp.path() / "npu", builder::Layout::kPipeline);
  npu.ep = "simnpu";
  builder::BuildBundle(npu);
  const device::EpCatalog catalog = CatalogWithSimNpu();
  generate::LoadOptions load;
  load.catalog = &catalog;
  load.load_tokenizer = false;
  ResetSimNpuCounters();
  const auto model = generate::Model::Load(npu.output_dir, load);
  EXPECT_GT(ReadSimNpuCounters().claimed_nodes, 0);
  generate::GenerateOptions greedy;
  greedy.max_new_tokens = 8;
  greedy.ignore_eos = true;
  const std::vector<int32_t> prompt = {1, 17, 42, 99, 5};
  const auto a = generate::Generate(*model, prompt, greedy);
  EXPECT_GT(ReadSimNpuCounters().runs, 0);
  EXPECT_EQ(a.generated_ids.size(), 8u);
  EXPECT_EQ(a.generated_ids, generate::Generate(*model, prompt, greedy).generated_ids);
}

TEST(GenerateSimNpuTest, UnknownProviderIsAUsageError) {
  TempDir tmp;
  builder::BuildOptions options = TinyGenerateOptions(tmp.path() / "b", builder::Layout::kPipeline);
  options.ep = "simnpu";
  builder::BuildBundle(options);
  generate::LoadOptions load;
  load.load_tokenizer = false;  // built-in catalog only: no simnpu row
  try {
    generate::Model::Load(options.output_dir, load);
    FAIL() << "simnpu is not in the built-in catalog";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(error.what()).find("'simnpu'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace modelkit::test

namespace modelkit::test {
namespace {

// Per stage, the nodes ORT placed on each EP (the sessions were created with record_ep_graph_assignment_info).
std::map<std::string, std::map<std::string, size_t>> StagePlacement(const generate::Model& model) {
  std::map<std::string, std::map<std::string, size_t>> placement;
  for (const generate::LoadedStage& stage : model.stages()) placement[stage.config.name] = NodesPerEp(*stage.session);
  return placement;
}

// The NPU a real compiler makes of static_shapes=1: the windowed layout's ctx/iter stages (every dimension fixed) run
// wholly on it, while the dynamic pipeline's stages fall back to the CPU EP; the windowed bundle's tokens equal
// those it gives on the CPU.
TEST(GenerateSimNpuTest, WindowedStagesRunWhollyOnAStaticShapeNpu) {
  RegisterSimNpu();
  TempDir tmp;
  builder::BuildOptions windowed = TinyGenerateOptions(tmp.path() / "windowed", builder::Layout::kPipeline);
  windowed.window = 16;
  builder::BuildBundle(windowed);
  builder::BuildOptions cpu = windowed;
  cpu.output_dir = tmp.path() / "cpu";
  builder::BuildBundle(cpu);
  builder::BuildOptions dynamic = TinyGenerateOptions(tmp.path() / "dynamic", builder::Layout::kPipeline);
  builder::BuildBundle(dynamic);
  for (const auto& bundle : {windowed.output_dir, dynamic.output_dir}) {
    SetSimNpuProvider(bundle, {"ctx", "iter"}, {{"static_shapes", "1"}});
    EditGenaiConfig(bundle, [](auto& config) {
      for (auto& [name, stage] : config["model"]["decoder"]["pipeline"][0].items()) {
        stage["session_options"]["session.record_ep_graph_assignment_info"] = "1";
      }
    });
  }
  const device::EpCatalog catalog = CatalogWithSimNpu();
  int64_t claimed = 0;
  const auto windowed_model = LoadOnSimNpu(windowed.output_dir, catalog, claimed);
  EXPECT_GT(claimed, 0);
  auto placement = StagePlacement(*windowed_model);
  for (const char* stage : {"ctx", "iter"}) {
    EXPECT_EQ(placement[stage].size(), 1u) << stage << " is split across EPs";
    EXPECT_GT(placement[stage][kSimNpu], 0u) << stage << " has no node on the NPU";
  }
  const auto dynamic_model = LoadOnSimNpu(dynamic.output_dir, catalog, claimed);
  placement = StagePlacement(*dynamic_model);
  for (const char* stage : {"ctx", "iter"}) {
    EXPECT_GT(placement[stage]["CPUExecutionProvider"], 0u) << "dynamic " << stage << " did not fall back to the CPU";
  }

  generate::LoadOptions load;
  load.load_tokenizer = false;
  const auto cpu_model = generate::Model::Load(cpu.output_dir, load);
  generate::GenerateOptions greedy;
  greedy.max_new_tokens = 24;
  greedy.ignore_eos = true;
  const std::vector<int32_t> prompt = {1, 17, 42, 99, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  const int64_t runs_before = ReadSimNpuCounters().runs;
  const auto on_npu = generate::Generate(*windowed_model, prompt, greedy);
  EXPECT_GT(ReadSimNpuCounters().runs, runs_before);
  EXPECT_EQ(on_npu.generated_ids, generate::Generate(*cpu_model, prompt, greedy).generated_ids);
}

}  // namespace
}  // namespace modelkit::test
