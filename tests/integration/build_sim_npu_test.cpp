// Every model the builder writes creates an ORT session on the CPU EP and on the simulated NPU, and the NPU really
// claims its nodes (counted by the plugin, not by us).
#include <gtest/gtest.h>

#include "modelkit/builder/bundle_builder.h"
#include "modelkit/ort/runtime.h"
#include "support/build_fixtures.h"
#include "support/sim_npu.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;

struct BuildCase {
  builder::Layout layout;
  builder::Precision precision;
  const char* label;
};

class BuiltModelsOnSimNpu : public ::testing::TestWithParam<BuildCase> {};

TEST_P(BuiltModelsOnSimNpu, EveryModelLoadsOnCpuAndOnTheNpu) {
  TempDir tmp;
  builder::BuildOptions options;
  options.output_dir = tmp.path() / "bundle";
  options.random = true;
  options.random_spec = TinySpec(builder::Arch::kQwen3);
  options.seed = 5;
  options.context_length = 64;
  options.layout = GetParam().layout;
  options.precision = GetParam().precision;
  builder::BuildBundle(options);
  Ort::Env& env = ort::SharedEnv();
  int models = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(options.output_dir)) {
    if (entry.path().extension() != ".onnx") continue;
    ++models;
    Ort::SessionOptions cpu;
    EXPECT_NO_THROW(Ort::Session(env, entry.path().c_str(), cpu)) << entry.path();
    const int64_t claimed_before = ReadSimNpuCounters().claimed_nodes;
    Ort::SessionOptions npu;
    AppendSimNpu(npu);
    EXPECT_NO_THROW(Ort::Session(env, entry.path().c_str(), npu)) << entry.path();
    EXPECT_GT(ReadSimNpuCounters().claimed_nodes, claimed_before) << entry.path() << ": nothing ran on the NPU";
  }
  EXPECT_EQ(models, GetParam().layout == builder::Layout::kPipeline ? 4 : 1);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, BuiltModelsOnSimNpu,
    ::testing::Values(BuildCase{builder::Layout::kFlat, builder::Precision::kFp32, "flat_fp32"},
                      BuildCase{builder::Layout::kFlat, builder::Precision::kInt4, "flat_int4"},
                      BuildCase{builder::Layout::kPipeline, builder::Precision::kFp32, "pipeline_fp32"},
                      BuildCase{builder::Layout::kPipeline, builder::Precision::kInt4, "pipeline_int4"}),
    [](const auto& test_info) { return std::string(test_info.param.label); });

}  // namespace
}  // namespace modelkit::test
