// The pipeline bundle with its ctx/iter stages on the simulated NPU plugin EP (as the builder writes them with
// --ep simnpu) generates the same tokens as on CPU, and the NPU really runs partitions.
#include <gtest/gtest.h>

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

TEST(GenerateSimNpuTest, PipelineOnSimNpuEqualsCpu) {
  RegisterSimNpu();
  TempDir tmp;
  build::BuildOptions cpu = TinyGenerateOptions(tmp.path() / "cpu", build::Layout::kPipeline);
  const ReferenceDecoder reference = BuildWithReference(cpu);
  build::BuildOptions npu = cpu;
  npu.output_dir = tmp.path() / "npu";
  npu.ep = "simnpu";
  build::BuildBundle(npu);
  // GroupQueryAttention stays on the CPU EP: its shared-buffer mode needs past and present to be one buffer, and
  // the simulated NPU's partitions copy their outputs, so inside a partition GQA sees two buffers and misreads the
  // KV (prefill logits differ from the first token on). A real NPU runs its own attention; see docs/generate.md.
  EditGenaiConfig(npu.output_dir, [](auto& config) {
    for (const char* stage : {"ctx", "iter"}) {
      config["model"]["decoder"]["pipeline"][0][stage]["session_options"]["provider_options"] =
          nlohmann::ordered_json::parse(R"([{"simnpu": {"op_deny": "GroupQueryAttention"}}])");
    }
  });

  const device::EpCatalog catalog = CatalogWithSimNpu();
  generate::LoadOptions load;
  load.catalog = &catalog;
  load.load_tokenizer = false;
  const auto cpu_model = generate::Model::Load(cpu.output_dir, load);
  ResetSimNpuCounters();
  const auto npu_model = generate::Model::Load(npu.output_dir, load);
  EXPECT_GT(ReadSimNpuCounters().claimed_nodes, 0) << "the simulated NPU took no nodes of ctx/iter";

  generate::GenerateOptions greedy;
  greedy.max_new_tokens = 32;
  greedy.ignore_eos = true;
  for (const std::vector<int32_t>& prompt : {std::vector<int32_t>{1, 17, 42, 99, 5}, std::vector<int32_t>{200, 3}}) {
    const auto on_cpu = generate::Generate(*cpu_model, prompt, greedy);
    const int64_t runs_before = ReadSimNpuCounters().runs;
    const auto on_npu = generate::Generate(*npu_model, prompt, greedy);
    EXPECT_GT(ReadSimNpuCounters().runs, runs_before);
    EXPECT_EQ(on_npu.generated_ids, on_cpu.generated_ids);
    EXPECT_EQ(on_cpu.generated_ids, ReferenceGreedy(reference, prompt, 32));
  }
}

// With everything on the simulated NPU (GroupQueryAttention included) the stages still load through the catalog's
// plugin row, partitions run and generation repeats; the tokens differ from CPU (see PipelineOnSimNpuEqualsCpu).
TEST(GenerateSimNpuTest, PipelineRunsOnSimNpu) {
  RegisterSimNpu();
  TempDir tmp;
  build::BuildOptions npu = TinyGenerateOptions(tmp.path() / "npu", build::Layout::kPipeline);
  npu.ep = "simnpu";
  build::BuildBundle(npu);
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
  build::BuildOptions options = TinyGenerateOptions(tmp.path() / "b", build::Layout::kPipeline);
  options.ep = "simnpu";
  build::BuildBundle(options);
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
