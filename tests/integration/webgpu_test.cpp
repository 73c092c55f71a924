// WebGPU as a real GPU-class EP on a CPU-only machine: Dawn on Mesa's software Vulkan driver (lavapipe), set up by
// scripts/fetch_lavapipe.sh.
#include <gtest/gtest.h>

#include "modelkit/device/machine.h"
#include "modelkit/ort/provider_append.h"
#include "modelkit/ort/runtime.h"
#include "support/lavapipe.h"
#include "support/model_case.h"

namespace modelkit {
namespace {

class WebGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    static const std::string problem = test::UseLavapipeInThisProcess();
    ASSERT_EQ(problem, "");
  }
};

TEST_F(WebGpu, DiscoveryReportsAUsableGpuEpAndGpuResolvesToIt) {
  device::OrtDiscovery discovery({});
  const device::Machine machine = device::LoadMachine(discovery, {});
  const device::EpStatus* webgpu = machine.inventory.FindEp("WebGpuExecutionProvider");
  ASSERT_NE(webgpu, nullptr);
  EXPECT_TRUE(webgpu->usable) << webgpu->reason;
  const device::Resolver resolver = machine.MakeResolver();
  EXPECT_EQ(resolver.ResolveOnnxEp(device::DeviceRequest::Parse("gpu")).ep->name, "WebGpuExecutionProvider");
  EXPECT_EQ(resolver.ResolveDevice(device::DeviceRequest::Parse("auto")).device, device::DeviceKind::kGpu);
}

class WebGpuModels : public WebGpu, public ::testing::WithParamInterface<std::string> {};

// Every node must run on WebGPU: CPU fallback is disabled, so session creation fails if one cannot.
TEST_P(WebGpuModels, RunEntirelyOnWebGpuWithCorrectOutputs) {
  const test::ModelCase model_case = test::LoadModelCase(GetParam());
  Ort::Env& env = ort::SharedEnv();
  Ort::SessionOptions options;
  options.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
  ort::AppendBuiltInProvider(options, ort::AppendMethod::kByName, "WebGPU", {});
  Ort::Session session(env, model_case.model.c_str(), options);
  test::ExpectCaseOutputs(session, model_case);
}

INSTANTIATE_TEST_SUITE_P(Models, WebGpuModels,
                         ::testing::Values("matmul_add", "matmul_nbits", "gqa_prompt", "gqa_with_past"));

}  // namespace
}  // namespace modelkit
