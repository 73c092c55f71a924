// The EP catalog: names, aliases, devices, capabilities and per-device priority lists (see docs/ep-catalog.md).
#include "modelkit/device/ep_catalog.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "modelkit/base/error.h"

namespace modelkit::device {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr DeviceKind kNpu = DeviceKind::kNpu;
constexpr DeviceKind kGpu = DeviceKind::kGpu;
constexpr DeviceKind kCpu = DeviceKind::kCpu;

std::vector<std::string> Names(const std::vector<const EpRow*>& rows) {
  std::vector<std::string> names;
  for (const EpRow* row : rows) names.push_back(row->name);
  return names;
}

std::string FoundName(const EpCatalog& catalog, const std::string& spelling) {
  const EpRow* row = catalog.Find(spelling);
  return row == nullptr ? "<nullptr>" : row->name;
}

EpRow PluginRow(std::string name, std::vector<std::string> aliases, std::vector<DeviceKind> devices) {
  EpRow row;
  row.name = std::move(name);
  row.aliases = std::move(aliases);
  row.devices = std::move(devices);
  row.plugin_library = "/opt/plugins/libplugin.so";
  row.registration_name = row.name;
  return row;
}

// Expects `fn` to throw a usage error and returns its message.
template <typename Fn>
std::string UsageMessage(Fn&& fn) {
  try {
    fn();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "expected a modelkit::Error";
  return {};
}

TEST(EpCatalog, BuiltInHasExactlyTheSpecifiedEps) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_THAT(
      catalog.CanonicalNames(),
      ElementsAre("CPUExecutionProvider", "CUDAExecutionProvider", "DmlExecutionProvider", "MIGraphXExecutionProvider",
                  "NvTensorRTRTXExecutionProvider", "OpenVINOExecutionProvider", "QNNExecutionProvider",
                  "TensorrtExecutionProvider", "VitisAIExecutionProvider", "WebGpuExecutionProvider"));
  EXPECT_THAT(catalog.AllAliases(), ElementsAre("cpu", "cuda", "dml", "migraphx", "nv_tensorrt_rtx", "nvtensorrtrtx",
                                                "openvino", "qnn", "tensorrt", "vitisai", "webgpu"));
  for (const EpRow& row : catalog.rows()) {
    EXPECT_FALSE(row.IsPlugin()) << row.name;
    EXPECT_FALSE(row.devices.empty()) << row.name;
  }
}

TEST(EpCatalog, FindsCanonicalNamesCaseInsensitively) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  for (const EpRow& row : catalog.rows()) {
    EXPECT_EQ(catalog.Find(row.name), &row) << row.name;
    std::string lower;
    std::string upper;
    for (char c : row.name) {
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
    EXPECT_EQ(catalog.Find(lower), &row) << lower;
    EXPECT_EQ(catalog.Find(upper), &row) << upper;
  }
  EXPECT_EQ(FoundName(catalog, "qnnexecutionprovider"), "QNNExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "QNNExecutionProvider"), "QNNExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "cudaexecutionprovider"), "CUDAExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "TensorRTExecutionProvider"), "TensorrtExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "WEBGPUEXECUTIONPROVIDER"), "WebGpuExecutionProvider");
}

TEST(EpCatalog, FindsEveryAliasCaseInsensitively) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  for (const EpRow& row : catalog.rows()) {
    for (const std::string& alias : row.aliases) {
      EXPECT_EQ(catalog.Find(alias), &row) << alias;
      std::string upper;
      for (char c : alias) upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
      EXPECT_EQ(catalog.Find(upper), &row) << upper;
    }
  }
}

TEST(EpCatalog, FindsUserAndGenaiSpellings) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_EQ(FoundName(catalog, "QNN"), "QNNExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "qnn"), "QNNExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "OpenVINO"), "OpenVINOExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "openvino"), "OpenVINOExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "NvTensorRtRtx"), "NvTensorRTRTXExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "nvtensorrtrtx"), "NvTensorRTRTXExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "nv_tensorrt_rtx"), "NvTensorRTRTXExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "WebGPU"), "WebGpuExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "webgpu"), "WebGpuExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "CUDA"), "CUDAExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "TensorRT"), "TensorrtExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "MIGraphX"), "MIGraphXExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "DML"), "DmlExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "Cpu"), "CPUExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "VitisAI"), "VitisAIExecutionProvider");
}

TEST(EpCatalog, FindsConfigSpellingsWithTheExecutionProviderSuffix) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_EQ(FoundName(catalog, "QnnExecutionProvider"), "QNNExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "WebGPUExecutionProvider"), "WebGpuExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "NvTensorRtRtxExecutionProvider"), "NvTensorRTRTXExecutionProvider");
  EXPECT_EQ(FoundName(catalog, "nv_tensorrt_rtxEXECUTIONPROVIDER"), "NvTensorRTRTXExecutionProvider");
  EXPECT_EQ(catalog.Find("ExecutionProvider"), nullptr);
  EXPECT_EQ(catalog.Find("TpuExecutionProvider"), nullptr);
}

TEST(EpCatalog, OnlyTheCpuRowIsCpu) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  int cpu_rows = 0;
  for (const EpRow& row : catalog.rows()) cpu_rows += row.IsCpu() ? 1 : 0;
  EXPECT_EQ(cpu_rows, 1);
  EXPECT_TRUE(catalog.Find("cpu")->IsCpu());
  EXPECT_FALSE(catalog.Find("openvino")->IsCpu()) << "serves the CPU device but is not the CPU EP";
}

TEST(EpCatalog, UnknownSpellingsGiveNullptr) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  // "ov" and "vitis" appear in winml-cli's --ep help text, but neither winml-cli nor modelkit accepts them as aliases.
  for (const char* spelling : {"auto", "mixed", "not-an-ep", "ov", "vitis", "", "config", "npu", "gpu",
                               "QNNExecutionProvider ", " qnn", "OpenVINOExecutionProvider.AUTO", "Execution"}) {
    EXPECT_EQ(catalog.Find(spelling), nullptr) << "'" << spelling << "'";
  }
}

TEST(EpCatalog, DevicesPrimaryAndCapabilitiesFollowTheTable) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  struct Expected {
    const char* name;
    std::vector<DeviceKind> devices;
    bool ep_context;
    bool device_type_option;
  };
  const std::vector<Expected> table = {
      {"NvTensorRTRTXExecutionProvider", {kGpu}, true, false},
      {"TensorrtExecutionProvider", {kGpu}, false, false},
      {"CUDAExecutionProvider", {kGpu}, false, false},
      {"MIGraphXExecutionProvider", {kGpu}, false, false},
      {"QNNExecutionProvider", {kNpu, kGpu}, true, false},
      {"OpenVINOExecutionProvider", {kNpu, kGpu, kCpu}, true, true},
      {"DmlExecutionProvider", {kGpu}, false, false},
      {"WebGpuExecutionProvider", {kGpu}, false, false},
      {"CPUExecutionProvider", {kCpu}, false, false},
      {"VitisAIExecutionProvider", {kNpu}, true, true},
  };
  for (const Expected& expected : table) {
    const EpRow* row = catalog.Find(expected.name);
    ASSERT_NE(row, nullptr) << expected.name;
    EXPECT_EQ(row->name, expected.name);
    EXPECT_EQ(row->devices, expected.devices) << expected.name;
    EXPECT_EQ(row->PrimaryDevice(), expected.devices.front()) << expected.name;
    EXPECT_EQ(row->ep_context, expected.ep_context) << expected.name;
    EXPECT_EQ(row->device_type_option, expected.device_type_option) << expected.name;
    for (DeviceKind device : kDevicePriority) {
      const bool listed = std::find(expected.devices.begin(), expected.devices.end(), device) != expected.devices.end();
      EXPECT_EQ(row->Supports(device), listed) << expected.name << " on " << DeviceName(device);
    }
  }
}

TEST(EpCatalog, PrimaryDevicesOfMultiDeviceEps) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_EQ(catalog.Find("qnn")->PrimaryDevice(), kNpu);
  EXPECT_EQ(catalog.Find("openvino")->PrimaryDevice(), kNpu);
  EXPECT_EQ(catalog.Find("vitisai")->PrimaryDevice(), kNpu);
  EXPECT_EQ(catalog.Find("dml")->PrimaryDevice(), kGpu);
  EXPECT_EQ(catalog.Find("tensorrt")->PrimaryDevice(), kGpu);
  EXPECT_EQ(catalog.Find("webgpu")->PrimaryDevice(), kGpu);
  EXPECT_EQ(catalog.Find("cpu")->PrimaryDevice(), kCpu);
}

TEST(EpCatalog, AliasIsTheFirstAlias) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_EQ(catalog.Find("NvTensorRTRTXExecutionProvider")->Alias(), "nvtensorrtrtx");
  EXPECT_EQ(catalog.Find("QNNExecutionProvider")->Alias(), "qnn");
  EXPECT_EQ(catalog.Find("OpenVINOExecutionProvider")->Alias(), "openvino");
  EXPECT_EQ(catalog.Find("VitisAIExecutionProvider")->Alias(), "vitisai");
  EXPECT_EQ(catalog.Find("DmlExecutionProvider")->Alias(), "dml");
  EXPECT_EQ(catalog.Find("CPUExecutionProvider")->Alias(), "cpu");
  EXPECT_EQ(catalog.Find("CUDAExecutionProvider")->Alias(), "cuda");
  EXPECT_EQ(catalog.Find("TensorrtExecutionProvider")->Alias(), "tensorrt");
  EXPECT_EQ(catalog.Find("MIGraphXExecutionProvider")->Alias(), "migraphx");
  EXPECT_EQ(catalog.Find("WebGpuExecutionProvider")->Alias(), "webgpu");
}

TEST(EpCatalog, AliasWithoutAliasesIsTheLowerCasedName) {
  EpRow row = PluginRow("SimNpuExecutionProvider", {}, {kNpu});
  EXPECT_EQ(row.Alias(), "simnpuexecutionprovider");
}

TEST(EpCatalog, NpuPriorityList) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_THAT(Names(catalog.PriorityList(kNpu)),
              ElementsAre("QNNExecutionProvider", "OpenVINOExecutionProvider", "VitisAIExecutionProvider"));
}

TEST(EpCatalog, GpuPriorityList) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_THAT(Names(catalog.PriorityList(kGpu)),
              ElementsAre("NvTensorRTRTXExecutionProvider", "TensorrtExecutionProvider", "CUDAExecutionProvider",
                          "MIGraphXExecutionProvider", "QNNExecutionProvider", "OpenVINOExecutionProvider",
                          "DmlExecutionProvider", "WebGpuExecutionProvider"));
}

TEST(EpCatalog, CpuPriorityList) {
  const EpCatalog catalog = EpCatalog::BuiltIn();
  EXPECT_THAT(Names(catalog.PriorityList(kCpu)), ElementsAre("OpenVINOExecutionProvider", "CPUExecutionProvider"));
}

TEST(EpCatalog, PluginRowComesAfterBuiltInsOfItsDevices) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  catalog.AddPluginRow(PluginRow("SimNpuExecutionProvider", {"simnpu"}, {kNpu}), "--ep-library SimNpu=/x/libsim.so");
  catalog.AddPluginRow(PluginRow("SimGpuExecutionProvider", {"simgpu"}, {kGpu, kCpu}), "--ep-library SimGpu=/x/g.so");

  EXPECT_THAT(Names(catalog.PriorityList(kNpu)), ElementsAre("QNNExecutionProvider", "OpenVINOExecutionProvider",
                                                             "VitisAIExecutionProvider", "SimNpuExecutionProvider"));
  EXPECT_THAT(Names(catalog.PriorityList(kGpu)),
              ElementsAre("NvTensorRTRTXExecutionProvider", "TensorrtExecutionProvider", "CUDAExecutionProvider",
                          "MIGraphXExecutionProvider", "QNNExecutionProvider", "OpenVINOExecutionProvider",
                          "DmlExecutionProvider", "WebGpuExecutionProvider", "SimGpuExecutionProvider"));
  EXPECT_THAT(Names(catalog.PriorityList(kCpu)),
              ElementsAre("OpenVINOExecutionProvider", "CPUExecutionProvider", "SimGpuExecutionProvider"));

  const EpRow* sim = catalog.Find("SIMNPU");
  ASSERT_NE(sim, nullptr);
  EXPECT_EQ(sim->name, "SimNpuExecutionProvider");
  EXPECT_TRUE(sim->IsPlugin());
  EXPECT_EQ(sim->PrimaryDevice(), kNpu);
  EXPECT_EQ(catalog.Find("simnpuexecutionprovider"), sim);
  EXPECT_EQ(FoundName(catalog, "simgpu"), "SimGpuExecutionProvider");
}

TEST(EpCatalog, PluginRowsKeepEarlierRowAddressesValid) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  const EpRow* qnn = catalog.Find("qnn");
  for (int i = 0; i < 40; ++i) {
    catalog.AddPluginRow(PluginRow("Plugin" + std::to_string(i) + "ExecutionProvider", {}, {kNpu}), "test");
  }
  EXPECT_EQ(catalog.Find("qnn"), qnn);
  EXPECT_EQ(qnn->name, "QNNExecutionProvider");
}

TEST(EpCatalog, PluginAliasesAreLowerCased) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  catalog.AddPluginRow(PluginRow("SimNpuExecutionProvider", {"SimNPU"}, {kNpu}), "test");
  EXPECT_EQ(catalog.Find("simnpu")->Alias(), "simnpu");
}

TEST(EpCatalog, PluginAliasCollidingWithBuiltInAliasIsAUsageError) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  const std::string message = UsageMessage([&] {
    catalog.AddPluginRow(PluginRow("MyQnnExecutionProvider", {"qnn"}, {kNpu}), "--ep-library MyQnn=/x/libmyqnn.so");
  });
  EXPECT_THAT(message, HasSubstr("QNNExecutionProvider"));
  EXPECT_THAT(message, HasSubstr("'qnn'"));
  EXPECT_THAT(message, HasSubstr("MyQnnExecutionProvider"));
  EXPECT_THAT(message, HasSubstr("--ep-library MyQnn=/x/libmyqnn.so"));
  EXPECT_EQ(catalog.Find("MyQnnExecutionProvider"), nullptr);
  EXPECT_EQ(catalog.rows().size(), EpCatalog::BuiltIn().rows().size());
}

TEST(EpCatalog, PluginAliasCollisionIsCaseInsensitive) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  const std::string message = UsageMessage([&] {
    catalog.AddPluginRow(PluginRow("FastOvExecutionProvider", {"OpenVINO"}, {kCpu}), "manifest fastov.json");
  });
  EXPECT_THAT(message, HasSubstr("OpenVINOExecutionProvider"));
  EXPECT_THAT(message, HasSubstr("manifest fastov.json"));
}

TEST(EpCatalog, PluginNameCollidingWithBuiltInNameIsAUsageError) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  const std::string message = UsageMessage(
      [&] { catalog.AddPluginRow(PluginRow("qnnexecutionprovider", {}, {kNpu}), "--ep-library X=/x/libx.so"); });
  EXPECT_THAT(message, HasSubstr("QNNExecutionProvider"));
  EXPECT_THAT(message, HasSubstr("--ep-library X=/x/libx.so"));
}

TEST(EpCatalog, PluginNameCollidingWithBuiltInAliasIsAUsageError) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  const std::string message =
      UsageMessage([&] { catalog.AddPluginRow(PluginRow("cuda", {}, {kGpu}), "--ep-library cuda=/x/libcuda.so"); });
  EXPECT_THAT(message, HasSubstr("CUDAExecutionProvider"));
}

TEST(EpCatalog, PluginCollidingWithAnotherPluginIsAUsageError) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  catalog.AddPluginRow(PluginRow("SimNpuExecutionProvider", {"simnpu"}, {kNpu}), "first");
  const std::string message =
      UsageMessage([&] { catalog.AddPluginRow(PluginRow("OtherNpuExecutionProvider", {"simnpu"}, {kNpu}), "second"); });
  EXPECT_THAT(message, HasSubstr("SimNpuExecutionProvider"));
  EXPECT_THAT(message, HasSubstr("second"));
  EXPECT_EQ(catalog.Find("OtherNpuExecutionProvider"), nullptr);
  EXPECT_EQ(FoundName(catalog, "simnpu"), "SimNpuExecutionProvider");
}

TEST(EpCatalog, PluginRowWithoutDevicesIsAUsageError) {
  EpCatalog catalog = EpCatalog::BuiltIn();
  const std::string message =
      UsageMessage([&] { catalog.AddPluginRow(PluginRow("NoDevExecutionProvider", {}, {}), "manifest nodev.json"); });
  EXPECT_THAT(message, HasSubstr("NoDevExecutionProvider"));
  EXPECT_THAT(message, HasSubstr("manifest nodev.json"));
  EXPECT_EQ(catalog.Find("NoDevExecutionProvider"), nullptr);
}

}  // namespace
}  // namespace modelkit::device
