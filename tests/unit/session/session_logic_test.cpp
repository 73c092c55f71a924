// The session's pure decisions over a config and a catalog: which stages compile, what artifacts are called, and
// which device an effective config runs on.
#include <gtest/gtest.h>

#include "modelkit/compile/stage_compile.h"
#include "modelkit/session/genai_session.h"

namespace modelkit::session {
namespace {

using Json = bundle::Json;
using compile::ArtifactName;
using compile::CompilableStages;

device::EpCatalog CatalogWithNpuPlugin() {
  device::EpCatalog catalog = device::EpCatalog::BuiltIn();
  device::EpRow row;
  row.name = "SimNpuExecutionProvider";
  row.aliases = {"simnpu"};
  row.devices = {device::DeviceKind::kNpu};
  row.ep_context = true;
  row.device_type_option = true;
  row.plugin_library = "/nonexistent/libsim_npu.so";
  catalog.AddPluginRow(row, "test");
  return catalog;
}

Json Pipeline(const std::string& ctx_providers, const std::string& lm_head_providers = "[]") {
  return Json::parse(R"({"model": {"decoder": {"pipeline": [
    {"embeddings": {"filename": "embeddings.onnx", "session_options": {"provider_options": []}}},
    {"ctx": {"filename": "ctx.onnx", "session_options": {"provider_options": )" +
                     ctx_providers + R"(}}},
    {"iter": {"session_options": {"provider_options": )" +
                     ctx_providers + R"(}}},
    {"lm_head": {"filename": "lm_head.onnx", "session_options": {"provider_options": )" +
                     lm_head_providers + R"(}}}]}}})");
}

TEST(CompilableStages, OnlyStagesWhoseFirstProviderCanCompile) {
  const device::EpCatalog catalog = CatalogWithNpuPlugin();
  const auto requests =
      CompilableStages(Pipeline(R"([{"SimNpuExecutionProvider": {"compile_delay_ms": 5}}])"), catalog);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].stage, "ctx");
  EXPECT_EQ(requests[0].source, "ctx.onnx");
  EXPECT_EQ(requests[0].ep->name, "SimNpuExecutionProvider");
  EXPECT_EQ(requests[0].provider_options, (std::map<std::string, std::string>{{"compile_delay_ms", "5"}}));
  EXPECT_EQ(requests[1].source, "iter.onnx") << "a stage without filename defaults to <stage>.onnx";
  EXPECT_EQ(ArtifactName("ctx", *requests[0].ep, {}), "ctx_simnpu_ctx.onnx") << "named by alias, not the raw key";
  const std::string with_options = ArtifactName("ctx", *requests[0].ep, requests[0].provider_options);
  EXPECT_EQ(with_options.rfind("ctx_simnpu-", 0), 0u) << with_options;
  EXPECT_EQ(with_options.size(), std::string("ctx_simnpu-12345678_ctx.onnx").size()) << with_options;
  EXPECT_EQ(with_options, ArtifactName("ctx", *requests[0].ep, {{"compile_delay_ms", "5"}})) << "not stable";
  EXPECT_NE(with_options, ArtifactName("ctx", *requests[0].ep, {{"compile_delay_ms", "6"}}))
      << "another option set must have its own cache entry";

  EXPECT_TRUE(CompilableStages(Pipeline(R"([{"webgpu": {}}])"), catalog).empty()) << "WebGPU has no EPContext step";
  EXPECT_TRUE(CompilableStages(Pipeline("[]"), catalog).empty());
  EXPECT_TRUE(CompilableStages(Pipeline(R"([{"nosuch": {}}])"), catalog).empty());
  EXPECT_TRUE(CompilableStages(Pipeline(R"([{"cpu": {}}, {"simnpu": {}}])"), catalog).empty())
      << "only the first provider counts";
}

TEST(EffectiveDevice, FollowsTheHardwareProvidersOfTheConfig) {
  const device::EpCatalog catalog = CatalogWithNpuPlugin();
  EXPECT_EQ(EffectiveDevice(Pipeline("[]"), catalog), "cpu");
  EXPECT_EQ(EffectiveDevice(Pipeline(R"([{"simnpu": {}}])"), catalog), "npu");
  EXPECT_EQ(EffectiveDevice(Pipeline(R"([{"webgpu": {}}])"), catalog), "gpu");
  EXPECT_EQ(EffectiveDevice(Pipeline(R"([{"OpenVINO": {"device_type": "GPU"}}])"), catalog), "gpu");
  EXPECT_EQ(EffectiveDevice(Pipeline(R"([{"OpenVINO": {}}])"), catalog), "") << "multi-device EP without device_type";
  EXPECT_EQ(EffectiveDevice(Pipeline(R"([{"simnpu": {}}])", R"([{"webgpu": {}}])"), catalog), "")
      << "two devices at once";
  EXPECT_EQ(EffectiveDevice(Pipeline(R"([{"nosuch": {}}])"), catalog), "");
  const Json flat = Json::parse(R"({"model": {"decoder": {"session_options": {"provider_options": [{"cpu": {}}]}}}})");
  EXPECT_EQ(EffectiveDevice(flat, catalog), "cpu");
}

}  // namespace
}  // namespace modelkit::session
