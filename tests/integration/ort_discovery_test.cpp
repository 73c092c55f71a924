// Discovery against the real ONNX Runtime (the npm build of 1.30) on this machine.
#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "modelkit/device/machine.h"
#include "modelkit/ort/probe_model.h"
#include "modelkit/ort/runtime.h"
#include "support/temp_dir.h"

namespace modelkit::device {
namespace {

Machine RealMachine(const std::vector<PluginLibrary>& plugins = {}) {
  OrtDiscovery discovery(plugins);
  return LoadMachine(discovery, plugins);
}

TEST(OrtDiscovery, CpuEpIsUsableOnTheCpuDevice) {
  const Machine machine = RealMachine();
  EXPECT_EQ(machine.inventory.ort_version, "1.30.0");
  const EpStatus* cpu = machine.inventory.FindEp("CPUExecutionProvider");
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->usable) << cpu->reason;
  EXPECT_EQ(cpu->devices, std::vector<DeviceKind>{DeviceKind::kCpu});
  EXPECT_EQ(cpu->source, EpSource::kEpDevices);
  bool has_cpu_device = false;
  for (const HardwareDevice& device : machine.inventory.devices) has_cpu_device |= device.kind == DeviceKind::kCpu;
  EXPECT_TRUE(has_cpu_device);
}

// The npm build lists CUDA and TensorRT in GetAvailableProviders although their provider libraries are absent.
TEST(OrtDiscovery, CudaAndTensorRtAreListedButNotUsable) {
  const Machine machine = RealMachine();
  for (const char* name : {"CUDAExecutionProvider", "TensorrtExecutionProvider"}) {
    const EpStatus* ep = machine.inventory.FindEp(name);
    ASSERT_NE(ep, nullptr) << name;
    EXPECT_FALSE(ep->usable) << name;
    EXPECT_EQ(ep->source, EpSource::kAvailableProviders);
    EXPECT_NE(ep->reason.find("libonnxruntime_providers_shared.so"), std::string::npos) << ep->reason;
    EXPECT_EQ(ep->reason.find("[ONNXRuntimeError]"), std::string::npos) << "source-location noise is stripped";
  }
}

// WebGPU is usable exactly when a Vulkan adapter exists; either way it is a GPU-class EP.
TEST(OrtDiscovery, WebGpuIsAGpuEpWhoseUsabilityMatchesResolution) {
  const Machine machine = RealMachine();
  const EpStatus* webgpu = machine.inventory.FindEp("WebGpuExecutionProvider");
  ASSERT_NE(webgpu, nullptr);
  EXPECT_EQ(webgpu->devices, std::vector<DeviceKind>{DeviceKind::kGpu});
  const Resolver resolver = machine.MakeResolver();
  if (webgpu->usable) {
    EXPECT_EQ(resolver.ResolveOnnxEp(device::DeviceRequest::Parse("gpu")).ep->name, "WebGpuExecutionProvider");
  } else {
    EXPECT_NE(webgpu->reason.find("adapter"), std::string::npos) << webgpu->reason;
    EXPECT_THROW(resolver.ResolveDevice(device::DeviceRequest::Parse("gpu")), Error);
  }
}

TEST(OrtDiscovery, AutoResolvesToTheBestUsableDeviceHere) {
  const Machine machine = RealMachine();
  const Resolver resolver = machine.MakeResolver();
  const EpStatus* webgpu = machine.inventory.FindEp("WebGpuExecutionProvider");
  const DeviceKind expected = webgpu != nullptr && webgpu->usable ? DeviceKind::kGpu : DeviceKind::kCpu;
  EXPECT_EQ(resolver.ResolveDevice(device::DeviceRequest::Parse("auto")).device, expected);
  EXPECT_EQ(resolver.ResolveOnnxEp(device::DeviceRequest::Parse("cpu")).ep->name, "CPUExecutionProvider");
  try {
    resolver.ResolveDevice(device::DeviceRequest::Parse("cpu"), &machine.catalog.Normalize("cuda"));
    FAIL() << "cuda cannot be usable here";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(error.what()).find("does not support device 'cpu'"), std::string::npos) << error.what();
  }
}

// A file that is not a plugin library is listed as unusable with ORT's reason; the rest of the machine is intact.
TEST(OrtDiscovery, ABrokenPluginLibraryIsReportedNotFatal) {
  test::TempDir dir;
  const auto fake = dir.Write("libnot_a_plugin.so", "this is not an ELF file");
  PluginLibrary plugin;
  plugin.registration_name = "BrokenPlugin";
  plugin.library = fake;
  plugin.origin = "test";
  const Machine machine = RealMachine({plugin});
  const EpStatus* broken = machine.inventory.FindEp("BrokenPlugin");
  ASSERT_NE(broken, nullptr);
  EXPECT_FALSE(broken->usable);
  EXPECT_NE(broken->reason.find("registering"), std::string::npos) << broken->reason;
  ASSERT_TRUE(broken->library.has_value());
  EXPECT_EQ(*broken->library, fake);
  ASSERT_NE(machine.inventory.FindEp("CPUExecutionProvider"), nullptr);
  EXPECT_TRUE(machine.inventory.FindEp("CPUExecutionProvider")->usable);
}

// The probe model is a real ONNX model: y = a + b, checked against the sum computed here.
TEST(ProbeModel, ComputesElementwiseSumOnTheCpuEp) {
  const auto bytes = ort::ProbeModelBytes();
  Ort::Env& env = ort::SharedEnv();  // initialises the C++ API before any other Ort object is made
  Ort::SessionOptions options;
  Ort::Session session(env, bytes.data(), bytes.size(), options);
  std::array<float, 4> a = {1.5f, -2.0f, 3.25f, 0.0f};
  std::array<float, 4> b = {0.5f, 4.0f, -1.25f, 7.0f};
  const std::array<int64_t, 2> shape = {1, 4};
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::array<Ort::Value, 2> inputs = {Ort::Value::CreateTensor<float>(memory, a.data(), 4, shape.data(), 2),
                                      Ort::Value::CreateTensor<float>(memory, b.data(), 4, shape.data(), 2)};
  const char* input_names[] = {"a", "b"};
  const char* output_names[] = {"y"};
  auto outputs = session.Run(Ort::RunOptions{nullptr}, input_names, inputs.data(), 2, output_names, 1);
  const float* y = outputs[0].GetTensorData<float>();
  for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y[i], a[i] + b[i]) << i;
}

}  // namespace
}  // namespace modelkit::device
