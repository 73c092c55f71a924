// The EP override rewrite, input -> expected output, and whether it took effect: the behaviour of Microsoft's
// winml-cli, plus modelkit's two differences (DML counts as hardware, also when judging effect; `--device auto`
// resolving to a GPU synthesises GPU). See docs/genai-session.md.
#include "modelkit/bundle/ep_override.h"

#include <gtest/gtest.h>

namespace modelkit::bundle {
namespace {

using device::DeviceKind;
using device::EpCatalog;

Json Parse(const char* text) { return Json::parse(text); }

// A pipeline bundle: embeddings (no options), context and iterator (given), lm_head ([]).
Json Pipeline(const char* context_providers, const char* iterator_providers) {
  return Json::parse(std::string(R"({"model": {"type": "decoder-pipeline", "custom_key": 1, "decoder": {"pipeline": [
      {"embeddings": {"filename": "embeddings.onnx"}},
      {"context": {"filename": "ctx.onnx", "session_options": {"log_id": "ctx", "provider_options": )") +
                     context_providers + R"(}}},
      {"iterator": {"filename": "iter.onnx", "session_options": {"provider_options": )" +
                     iterator_providers + R"(}}},
      {"lm_head": {"filename": "lm_head.onnx", "session_options": {"provider_options": []}}}]}}})");
}

const Json& Stage(const Json& config, const std::string& name) {
  for (const Json& entry : config.at("model").at("decoder").at("pipeline")) {
    if (entry.contains(name)) return entry.at(name);
  }
  throw std::runtime_error("no stage " + name);
}

Json Providers(const Json& config, const std::string& stage) {
  return Stage(config, stage).at("session_options").at("provider_options");
}

class EpOverride : public ::testing::Test {
 protected:
  const device::EpRow* Ep(const char* name) { return catalog_.Find(name); }
  OverrideResult Apply(const Json& config, const char* ep, std::optional<DeviceKind> device = std::nullopt) {
    return ApplyEpOverride(config, ep ? Ep(ep) : nullptr, device, catalog_);
  }
  EpCatalog catalog_ = EpCatalog::BuiltIn();
};

TEST_F(EpOverride, NoEpIsTheIdentity) {
  const Json config = Pipeline(R"([{"qnn": {}}])", R"([{"qnn": {}}])");
  const OverrideResult result = Apply(config, nullptr);
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(result.config, config);
}

TEST_F(EpOverride, CpuStripsEveryHardwareProvider) {
  const Json config = Pipeline(R"([{"qnn": {"backend_path": "QnnHtp.dll"}}])", R"([{"dml": {}}])");
  const OverrideResult result = Apply(config, "cpu");
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(Providers(result.config, "context"), Json::array());
  EXPECT_EQ(Providers(result.config, "iterator"), Json::array());
  EXPECT_EQ(Stage(result.config, "context").at("session_options").at("log_id"), "ctx") << "other keys kept";
  EXPECT_EQ(result.config.at("model").at("custom_key"), 1) << "unknown keys kept";
}

TEST_F(EpOverride, CpuLeavesCpuStagesByteIdentical) {
  const Json config = Pipeline(R"([{"cpu": {}}])", R"([])");
  const OverrideResult result = Apply(config, "cpu");
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(result.config.dump(), config.dump());
  EXPECT_FALSE(Stage(result.config, "embeddings").contains("session_options")) << "no key is added";
}

TEST_F(EpOverride, HardwareReroutesOnlyHardwareStages) {
  const Json config = Pipeline(R"([{"dml": {}}])", R"([])");
  const OverrideResult result = Apply(config, "qnn");
  EXPECT_EQ(Providers(result.config, "context"), Parse(R"([{"qnn": {}}])"));
  EXPECT_EQ(Providers(result.config, "iterator"), Json::array()) << "CPU stages are never forced onto hardware";
  EXPECT_FALSE(Stage(result.config, "embeddings").contains("session_options"));
  EXPECT_EQ(Providers(result.config, "lm_head"), Json::array());
}

TEST_F(EpOverride, EmptyQnnOptionsWarn) {
  const OverrideResult result = Apply(Pipeline(R"([{"dml": {}}])", R"([])"), "qnn");
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_NE(result.warnings[0].find("empty qnn options"), std::string::npos) << result.warnings[0];
  EXPECT_TRUE(Apply(Pipeline(R"([{"dml": {}}])", R"([])"), "dml").warnings.empty());
}

TEST_F(EpOverride, BorrowsAnotherStagesOptionsForTheTarget) {
  const Json config = Pipeline(R"([{"dml": {}}])", R"([{"qnn": {"backend_path": "QnnHtp.dll", "soc_model": "60"}}])");
  const OverrideResult result = Apply(config, "qnn");
  EXPECT_EQ(Providers(result.config, "context"),
            Parse(R"([{"qnn": {"backend_path": "QnnHtp.dll", "soc_model": "60"}}])"));
  EXPECT_TRUE(result.warnings.empty());
}

TEST_F(EpOverride, SynthesisesDeviceTypeForDeviceParameterisedEps) {
  const Json config = Pipeline(R"([{"qnn": {}}])", R"([{"qnn": {}}])");
  EXPECT_EQ(Providers(Apply(config, "openvino", DeviceKind::kNpu).config, "context"),
            Parse(R"([{"openvino": {"device_type": "NPU"}}])"));
  EXPECT_EQ(Providers(Apply(config, "openvino").config, "context"), Parse(R"([{"openvino": {"device_type": "NPU"}}])"))
      << "no device: the EP's primary device";
  EXPECT_EQ(Providers(Apply(config, "OpenVINOExecutionProvider", DeviceKind::kGpu).config, "iterator"),
            Parse(R"([{"openvino": {"device_type": "GPU"}}])"))
      << "a full name is keyed by its alias";
  EXPECT_EQ(Providers(Apply(config, "vitisai", DeviceKind::kNpu).config, "context"),
            Parse(R"([{"vitisai": {"device_type": "NPU"}}])"));
}

TEST_F(EpOverride, SameEpKeepsItsOwnOptionsVerbatim) {
  const Json config = Pipeline(R"([{"qnn": {"backend_path": "a"}}])", R"([{"qnn": {}}])");
  const OverrideResult result = Apply(config, "qnn");
  EXPECT_EQ(Providers(result.config, "context"), Parse(R"([{"qnn": {"backend_path": "a"}}])"));
  EXPECT_EQ(Providers(result.config, "iterator"), Parse(R"([{"qnn": {}}])")) << "its own {} wins over borrowing";
  EXPECT_FALSE(result.changed);
}

TEST_F(EpOverride, DifferentEpDropsForeignOptions) {
  const OverrideResult result = Apply(Pipeline(R"([{"qnn": {"backend_path": "x"}}])", R"([])"), "dml");
  EXPECT_EQ(Providers(result.config, "context"), Parse(R"([{"dml": {}}])"));
}

TEST_F(EpOverride, ProviderKeysMatchAnySpelling) {
  const Json config = Pipeline(R"([{"OpenVINO": {"device_type": "GPU", "cache_dir": "c"}}])", R"([])");
  EXPECT_EQ(Providers(Apply(config, "openvino", DeviceKind::kNpu).config, "context"),
            Parse(R"([{"openvino": {"device_type": "GPU", "cache_dir": "c"}}])"))
      << "the stage's own options for the EP win over synthesis";
}

TEST_F(EpOverride, InputIsNeverMutated) {
  const Json config = Pipeline(R"([{"qnn": {}}])", R"([{"dml": {}}])");
  const Json copy = config;
  Apply(config, "cpu");
  Apply(config, "openvino", DeviceKind::kGpu);
  EXPECT_EQ(config, copy);
}

TEST_F(EpOverride, FlatDecoderOptionsAreNeverRewritten) {
  const Json config = Parse(R"({"model": {"decoder": {"session_options": {"provider_options": [{"qnn": {}}]}}}})");
  const OverrideResult result = Apply(config, "cpu");
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(result.config, config);
}

TEST_F(EpOverride, ObjectFormPipelineIsRewrittenToo) {
  const Json config = Parse(R"({"model": {"decoder": {"pipeline": {
      "ctx": {"session_options": {"provider_options": [{"qnn": {}}]}}}}}})");
  const OverrideResult result = Apply(config, "cpu");
  EXPECT_EQ(
      result.config.at("model").at("decoder").at("pipeline").at("ctx").at("session_options").at("provider_options"),
      Json::array());
}

TEST(BundleUsesHardwareEp, FindsTheFirstNonCpuKey) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_EQ(BundleUsesHardwareEp(Parse(R"({})"), catalog), std::nullopt);
  EXPECT_EQ(BundleUsesHardwareEp(Pipeline(R"([])", R"([{"cpu": {}}])"), catalog), std::nullopt);
  EXPECT_EQ(BundleUsesHardwareEp(Pipeline(R"([{"qnn": {}}])", R"([])"), catalog), "qnn");
  EXPECT_EQ(BundleUsesHardwareEp(Pipeline(R"([{"dml": {}}])", R"([])"), catalog), "dml")
      << "DML counts as hardware (winml-cli skips it)";
  EXPECT_EQ(
      BundleUsesHardwareEp(
          Parse(
              R"({"model": {"decoder": {"session_options": {"provider_options": [{"OpenVINO": {"device_type": "NPU"}}]}}}})"),
          catalog),
      "OpenVINO");
  EXPECT_EQ(BundleUsesHardwareEp(Parse(R"({"model": {"decoder": {"session_options": {"provider_options": "qnn"}}}})"),
                                 catalog),
            std::nullopt)
      << "a malformed list is ignored";
}

class Effectiveness : public EpOverride {};

TEST_F(Effectiveness, FollowsTheEffectiveConfig) {
  const Json qnn_pipeline = Pipeline(R"([{"qnn": {}}])", R"([{"qnn": {}}])");
  EXPECT_FALSE(OverrideTookEffect(qnn_pipeline, nullptr, catalog_));
  EXPECT_TRUE(OverrideTookEffect(qnn_pipeline, Ep("qnn"), catalog_)) << "already on the EP";
  EXPECT_EQ(EffectiveEpOf(qnn_pipeline, Ep("qnn"), catalog_).ReportName(), "qnn");
  const Json all_cpu = Pipeline(R"([])", R"([])");
  EXPECT_FALSE(OverrideTookEffect(Apply(all_cpu, "qnn").config, Ep("qnn"), catalog_)) << "nothing to re-route";
  EXPECT_EQ(EffectiveEpOf(Apply(all_cpu, "qnn").config, Ep("qnn"), catalog_), device::EffectiveEp{});
  EXPECT_TRUE(OverrideTookEffect(Apply(all_cpu, "cpu").config, Ep("cpu"), catalog_));
  EXPECT_TRUE(OverrideTookEffect(Apply(qnn_pipeline, "cpu").config, Ep("cpu"), catalog_));
  const Json flat_qnn = Parse(R"({"model": {"decoder": {"session_options": {"provider_options": [{"qnn": {}}]}}}})");
  EXPECT_FALSE(OverrideTookEffect(Apply(flat_qnn, "cpu").config, Ep("cpu"), catalog_))
      << "hardware survives outside the pipeline";
  EXPECT_EQ(EffectiveEpOf(Apply(flat_qnn, "qnn").config, Ep("qnn"), catalog_), device::EffectiveEp{})
      << "flat is ignored";
  const Json flat_dml = Parse(R"({"model": {"decoder": {"session_options": {"provider_options": [{"dml": {}}]}}}})");
  EXPECT_FALSE(OverrideTookEffect(flat_dml, Ep("cpu"), catalog_)) << "DML remains hardware";
  EXPECT_FALSE(OverrideTookEffect(Parse(R"({"model": {"decoder": {"pipeline": []}}})"), Ep("qnn"), catalog_));
}

TEST(SessionDevice, ConcreteAutoConfigAndNone) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  const device::EpRow* openvino = catalog.Find("openvino");
  EXPECT_EQ(SessionDevice(nullptr, device::DeviceRequest::Of(DeviceKind::kNpu), DeviceKind::kNpu), std::nullopt);
  EXPECT_EQ(SessionDevice(openvino, device::DeviceRequest::Of(DeviceKind::kCpu), DeviceKind::kCpu), DeviceKind::kCpu);
  EXPECT_EQ(SessionDevice(openvino, device::DeviceRequest::Parse("GPU"), std::nullopt), DeviceKind::kGpu);
  EXPECT_EQ(SessionDevice(openvino, device::DeviceRequest::Auto(), DeviceKind::kGpu), DeviceKind::kGpu)
      << "auto resolving to a GPU synthesises GPU (winml-cli writes the EP's primary device)";
  EXPECT_EQ(SessionDevice(openvino, device::DeviceRequest::Config(), DeviceKind::kGpu), DeviceKind::kNpu);
  EXPECT_EQ(SessionDevice(openvino, device::DeviceRequest::Config(), std::nullopt), DeviceKind::kNpu);
}

}  // namespace
}  // namespace modelkit::bundle
