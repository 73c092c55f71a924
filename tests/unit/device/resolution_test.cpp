// Device and EP resolution (see docs/ep-catalog.md): EP names, the device choice, the usable EPs per device, and the
// primary-device rule (among the usable EPs for a device, the first whose primary device is that device, else the
// first), which the genai and the ONNX runtime both apply.
#include "modelkit/device/resolution.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "device/inventory_json.h"
#include "modelkit/base/error.h"
#include "modelkit/device/discovery.h"
#include "modelkit/device/machine.h"
#include "support/process.h"

namespace modelkit::device {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr DeviceKind kNpu = DeviceKind::kNpu;
constexpr DeviceKind kGpu = DeviceKind::kGpu;
constexpr DeviceKind kCpu = DeviceKind::kCpu;

const EpCatalog& Catalog() {
  static const EpCatalog catalog = EpCatalog::BuiltIn();
  return catalog;
}

EpStatus Ep(std::string name, std::vector<DeviceKind> devices, bool usable = true, std::string reason = {}) {
  EpStatus status;
  status.name = std::move(name);
  status.devices = std::move(devices);
  status.usable = usable;
  status.reason = std::move(reason);
  return status;
}

Inventory Inv(std::vector<EpStatus> eps) {
  Inventory inventory;
  inventory.ort_version = "1.23.0";
  inventory.eps = std::move(eps);
  return inventory;
}

// An inventory with a Resolver over the built-in catalog (both kept alive together, never copied).
struct TestMachine {
  explicit TestMachine(Inventory inv) : inventory(std::move(inv)), resolver(Catalog(), inventory) {}
  TestMachine(const TestMachine&) = delete;
  TestMachine& operator=(const TestMachine&) = delete;
  Inventory inventory;
  Resolver resolver;
};

Machine Load(Inventory inventory, const std::vector<PluginLibrary>& plugins = {}) {
  FakeDiscovery discovery(std::move(inventory));
  return LoadMachine(discovery, plugins);
}

// A Machine from LoadMachine(FakeDiscovery(...)) with its resolver.
struct LoadedMachine {
  explicit LoadedMachine(Inventory inv) : machine(Load(std::move(inv))), resolver(machine.MakeResolver()) {}
  LoadedMachine(const LoadedMachine&) = delete;
  LoadedMachine& operator=(const LoadedMachine&) = delete;
  Machine machine;
  Resolver resolver;
};

Inventory Fixture(const std::string& name) {
  return InventoryFromJsonFile(modelkit::test::FixturePath("machines/" + name + ".json"));
}

std::vector<std::string> Names(const std::vector<const EpRow*>& rows) {
  std::vector<std::string> names;
  for (const EpRow* row : rows) names.push_back(row == nullptr ? "<nullptr>" : row->name);
  return names;
}

DeviceRequest Req(std::string_view device) { return DeviceRequest::Parse(device); }

std::string GenaiAlias(const Resolver& resolver, std::string_view device) {
  const EpRow* ep = resolver.ResolveGenaiEp(Req(device));
  return ep == nullptr ? "<none>" : ep->Alias();
}

struct Caught {
  bool thrown = false;
  ExitCode code = ExitCode::kOk;
  std::string message;
};

template <typename Fn>
Caught Catch(Fn&& fn) {
  Caught caught;
  try {
    fn();
  } catch (const Error& error) {
    caught.thrown = true;
    caught.code = error.code();
    caught.message = error.what();
  }
  return caught;
}

#define EXPECT_USAGE_ERROR(caught)                                  \
  do {                                                              \
    EXPECT_TRUE((caught).thrown) << "expected a modelkit::Error";   \
    EXPECT_EQ((caught).code, ExitCode::kUsage) << (caught).message; \
  } while (0)

// --- ResolveGenaiEp: each GenaiRow test pairs a device and the usable EPs with the EP chosen -----------------------

TEST(Resolver, GenaiRow1AutoWithQnnOnNpuGivesQnn) {
  TestMachine m(Inv({Ep("QNNExecutionProvider", {kNpu})}));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto")).device, kNpu);
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("QNNExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "qnn");
}

TEST(Resolver, GenaiRow2NpuWithQnnAndOpenVinoGivesQnn) {
  TestMachine m(Inv({Ep("OpenVINOExecutionProvider", {kNpu}), Ep("QNNExecutionProvider", {kNpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("QNNExecutionProvider", "OpenVINOExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "npu"), "qnn");
}

TEST(Resolver, GenaiRow3NpuWithVitisAiGivesVitisAi) {
  TestMachine m(Inv({Ep("VitisAIExecutionProvider", {kNpu}), Ep("CPUExecutionProvider", {kCpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("VitisAIExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "npu"), "vitisai");
}

TEST(Resolver, GenaiRow4GpuWithDmlGivesDml) {
  TestMachine m(Inv({Ep("DmlExecutionProvider", {kGpu}), Ep("CPUExecutionProvider", {kCpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kGpu)), ElementsAre("DmlExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "gpu"), "dml");
}

TEST(Resolver, GenaiRow5GpuWithOpenVinoAndDmlPrefersDeviceNativeDml) {
  TestMachine m(Inv({Ep("DmlExecutionProvider", {kGpu}), Ep("OpenVINOExecutionProvider", {kGpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kGpu)), ElementsAre("OpenVINOExecutionProvider", "DmlExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "gpu"), "dml");
}

TEST(Resolver, GenaiRow6CpuWithOpenVinoAndCpuPrefersCpu) {
  TestMachine m(Inv({Ep("CPUExecutionProvider", {kCpu}), Ep("OpenVINOExecutionProvider", {kCpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kCpu)), ElementsAre("OpenVINOExecutionProvider", "CPUExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
}

TEST(Resolver, GenaiRow7CpuWithCpuGivesCpu) {
  TestMachine m(Inv({Ep("CPUExecutionProvider", {kCpu})}));
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
}

TEST(Resolver, GenaiRow8CpuWithOpenVinoOnlyFallsBackToOpenVino) {
  TestMachine m(Inv({Ep("OpenVINOExecutionProvider", {kCpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kCpu)), ElementsAre("OpenVINOExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "openvino");
}

TEST(Resolver, GenaiRow9NpuAvailableButNoPriorityEpGivesNone) {
  // Dml reported on the npu makes the npu available, but Dml is not in the npu priority list: resolve_eps -> [].
  TestMachine m(Inv({Ep("DmlExecutionProvider", {kNpu}), Ep("CPUExecutionProvider", {kCpu})}));
  EXPECT_THAT(m.resolver.AvailableDevices(), ElementsAre(kNpu, kCpu));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("npu")).device, kNpu);
  EXPECT_THAT(m.resolver.ResolveEps(kNpu), IsEmpty());
  EXPECT_EQ(m.resolver.ResolveGenaiEp(Req("npu")), nullptr);
  EXPECT_EQ(m.resolver.ResolveGenaiEp(Req("auto")), nullptr);
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
}

TEST(Resolver, GenaiExplicitNpuWithoutNpuEpPropagatesUsageError) {
  TestMachine m(Inv({Ep("CPUExecutionProvider", {kCpu})}));
  const Caught caught = Catch([&] { m.resolver.ResolveGenaiEp(Req("npu")); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("no compatible EP"));
  EXPECT_THAT(caught.message, HasSubstr("QNNExecutionProvider"));
}

TEST(Resolver, GenaiConfigNeverResolves) {
  TestMachine empty(Inv({}));
  EXPECT_EQ(empty.resolver.ResolveGenaiEp(Req("config")), nullptr);
  EXPECT_EQ(empty.resolver.ResolveGenaiEp(Req("CONFIG")), nullptr);
  TestMachine qnn(Inv({Ep("QNNExecutionProvider", {kNpu})}));
  EXPECT_EQ(qnn.resolver.ResolveGenaiEp(Req("config")), nullptr);
}

TEST(Resolver, GenaiPropagatesNoEps) {
  TestMachine empty(Inv({}));
  const Caught none = Catch([&] { empty.resolver.ResolveGenaiEp(Req("auto")); });
  EXPECT_TRUE(none.thrown);
  EXPECT_EQ(none.code, ExitCode::kRuntimeFailure);
  EXPECT_THAT(none.message, HasSubstr("no execution providers detected"));
}

// --- NormalizeEp ---------------------------------------------------------------------------------------------------

TEST(EpCatalog, NormalizeAcceptsNamesAndAliasesCaseInsensitively) {
  EXPECT_EQ(Catalog().Normalize("qnn").name, "QNNExecutionProvider");
  EXPECT_EQ(Catalog().Normalize("QNN").name, "QNNExecutionProvider");
  EXPECT_EQ(Catalog().Normalize("qnnexecutionprovider").name, "QNNExecutionProvider");
  EXPECT_EQ(Catalog().Normalize("OpenVINO").name, "OpenVINOExecutionProvider");
  EXPECT_EQ(Catalog().Normalize("nv_tensorrt_rtx").name, "NvTensorRTRTXExecutionProvider");
  EXPECT_EQ(&Catalog().Normalize("cuda"), Catalog().Find("CUDAExecutionProvider"));
}

TEST(EpCatalog, NormalizeRejectsUnknownNamesListingValidOnes) {
  for (const char* spelling : {"ov", "vitis", "auto", "mixed", "not-an-ep", ""}) {
    const Caught caught = Catch([&] { Catalog().Normalize(spelling); });
    EXPECT_USAGE_ERROR(caught);
    EXPECT_THAT(caught.message, HasSubstr("unknown execution provider"));
    EXPECT_THAT(caught.message, HasSubstr("'" + std::string(spelling) + "'"));
    for (const char* valid : {"qnn", "openvino", "vitisai", "cuda", "tensorrt", "webgpu", "QNNExecutionProvider",
                              "CPUExecutionProvider", "VitisAIExecutionProvider"}) {
      EXPECT_THAT(caught.message, HasSubstr(valid)) << spelling;
    }
  }
}

// --- ResolveDevice -------------------------------------------------------------------------------------------------

TEST(DeviceRequest, UnknownDeviceIsAUsageErrorNamingTheValidOnes) {
  for (const char* device : {"tpu", "", "npu0", "configs"}) {
    const Caught caught = Catch([&] { Req(device); });
    EXPECT_USAGE_ERROR(caught);
    EXPECT_THAT(caught.message, HasSubstr("'" + std::string(device) + "'"));
    EXPECT_THAT(caught.message, HasSubstr("auto, npu, gpu, cpu, or config"));
  }
}

TEST(DeviceRequest, ParsesEverySpellingCaseInsensitivelyAndNamesItBack) {
  EXPECT_TRUE(Req("CONFIG").follows_config());
  EXPECT_TRUE(Req("Auto").is_auto());
  EXPECT_EQ(Req("Auto").kind(), std::nullopt);
  EXPECT_EQ(Req("config").kind(), std::nullopt);
  EXPECT_EQ(Req("NPU"), DeviceRequest::Of(kNpu));
  EXPECT_EQ(Req("gPu").kind(), kGpu);
  for (const char* name : {"config", "auto", "npu", "gpu", "cpu"}) EXPECT_EQ(Req(name).Name(), name);
}

TEST(Resolver, DeviceConfigIsAUsageErrorOutsideGenai) {
  TestMachine m(Inv({Ep("CPUExecutionProvider", {kCpu})}));
  for (const EpRow* ep : {static_cast<const EpRow*>(nullptr), Catalog().Find("cpu")}) {
    const Caught caught = Catch([&] { m.resolver.ResolveDevice(DeviceRequest::Config(), ep); });
    EXPECT_USAGE_ERROR(caught);
    EXPECT_THAT(caught.message, HasSubstr("--device config"));
  }
}

TEST(Resolver, DeviceNamesAreCaseInsensitive) {
  TestMachine m(Inv({Ep("QNNExecutionProvider", {kNpu, kGpu}), Ep("CPUExecutionProvider", {kCpu})}));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("NPU")).device, kNpu);
  EXPECT_EQ(m.resolver.ResolveDevice(Req("Gpu")).device, kGpu);
  EXPECT_EQ(m.resolver.ResolveDevice(Req("CPU")).device, kCpu);
  EXPECT_EQ(m.resolver.ResolveDevice(Req("AUTO")).device, kNpu);
  EXPECT_EQ(GenaiAlias(m.resolver, "NPU"), "qnn");
}

TEST(Resolver, AutoPrefersNpuThenGpuThenCpu) {
  TestMachine all(Inv({Ep("CPUExecutionProvider", {kCpu}), Ep("DmlExecutionProvider", {kGpu}),
                       Ep("VitisAIExecutionProvider", {kNpu})}));
  DeviceResolution r = all.resolver.ResolveDevice(Req("auto"));
  EXPECT_EQ(r.device, kNpu);
  EXPECT_THAT(r.available_devices, ElementsAre(kNpu, kGpu, kCpu));

  TestMachine gpu_cpu(Inv({Ep("CPUExecutionProvider", {kCpu}), Ep("CUDAExecutionProvider", {kGpu})}));
  r = gpu_cpu.resolver.ResolveDevice(Req("auto"));
  EXPECT_EQ(r.device, kGpu);
  EXPECT_THAT(r.available_devices, ElementsAre(kGpu, kCpu));

  TestMachine cpu(Inv({Ep("CPUExecutionProvider", {kCpu})}));
  r = cpu.resolver.ResolveDevice(Req("auto"));
  EXPECT_EQ(r.device, kCpu);
  EXPECT_THAT(r.available_devices, ElementsAre(kCpu));
}

TEST(Resolver, StaticGateComesBeforeAvailability) {
  LoadedMachine m(Fixture("cpu_only"));
  const Caught caught = Catch([&] { m.resolver.ResolveDevice(Req("npu"), &m.machine.catalog.Normalize("cuda")); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("CUDAExecutionProvider"));
  EXPECT_THAT(caught.message, HasSubstr("does not support device 'npu'"));
  EXPECT_THAT(caught.message, HasSubstr("gpu"));
  EXPECT_THAT(caught.message, Not(HasSubstr("not available")));

  TestMachine empty(Inv({}));
  const Caught on_empty = Catch([&] { empty.resolver.ResolveDevice(Req("cpu"), Catalog().Find("qnn")); });
  EXPECT_USAGE_ERROR(on_empty);
  EXPECT_THAT(on_empty.message, HasSubstr("does not support device 'cpu'"));
  EXPECT_THAT(on_empty.message, HasSubstr("npu, gpu"));
  LoadedMachine qnn(Fixture("qnn_laptop"));
  const Caught elsewhere =
      Catch([&] { qnn.resolver.ResolveDevice(Req("cpu"), &qnn.machine.catalog.Normalize("dml")); });
  EXPECT_USAGE_ERROR(elsewhere);
  EXPECT_THAT(elsewhere.message, HasSubstr("DmlExecutionProvider"));
  EXPECT_THAT(elsewhere.message, HasSubstr("does not support device 'cpu'"));
}

TEST(Resolver, UnavailableEpListsAvailableEps) {
  LoadedMachine m(Fixture("qnn_laptop"));
  const Caught caught = Catch([&] { m.resolver.ResolveDevice(Req("auto"), &m.machine.catalog.Normalize("openvino")); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("OpenVINOExecutionProvider"));
  EXPECT_THAT(caught.message, HasSubstr("is not available on this machine"));
  EXPECT_THAT(caught.message, HasSubstr("QNNExecutionProvider"));
  EXPECT_THAT(caught.message, HasSubstr("DmlExecutionProvider"));
  EXPECT_THAT(caught.message, HasSubstr("CPUExecutionProvider"));
}

TEST(Resolver, UnusableEpIsNotAvailableAndSaysWhy) {
  LoadedMachine m(Fixture("cpu_only"));
  for (const char* device : {"auto", "gpu"}) {
    const Caught caught = Catch([&] { m.resolver.ResolveDevice(Req(device), &m.machine.catalog.Normalize("cuda")); });
    EXPECT_USAGE_ERROR(caught);
    EXPECT_THAT(caught.message, HasSubstr("CUDAExecutionProvider"));
    EXPECT_THAT(caught.message, HasSubstr("is not available on this machine"));
    EXPECT_THAT(caught.message, HasSubstr("libonnxruntime_providers_cuda.so: cannot open shared object file"));
    EXPECT_THAT(caught.message, HasSubstr("CPUExecutionProvider"));
  }
  const Caught webgpu = Catch([&] { m.resolver.ResolveOnnxEp(Req("auto"), &m.machine.catalog.Normalize("webgpu")); });
  EXPECT_USAGE_ERROR(webgpu);
  EXPECT_THAT(webgpu.message, HasSubstr("is not available on this machine"));
  EXPECT_THAT(webgpu.message, HasSubstr("Failed to get a WebGPU adapter: No supported adapters"));
}

TEST(Resolver, NoEpsAtAllIsARuntimeFailure) {
  TestMachine empty(Inv({}));
  TestMachine unusable(Inv(
      {Ep("CPUExecutionProvider", {kCpu}, false, "broken"), Ep("CUDAExecutionProvider", {kGpu}, false, "no libcuda")}));
  // An EP the catalog does not know (and no plugin provides) does not take part either.
  TestMachine unknown(Inv({Ep("AzureExecutionProvider", {kCpu})}));
  for (const TestMachine* m : {&empty, &unusable, &unknown}) {
    for (const char* device : {"auto", "npu", "gpu", "cpu"}) {
      const Caught caught = Catch([&] { m->resolver.ResolveDevice(Req(device)); });
      EXPECT_TRUE(caught.thrown) << device;
      EXPECT_EQ(caught.code, ExitCode::kRuntimeFailure) << caught.message;
      EXPECT_THAT(caught.message, HasSubstr("no execution providers detected"));
    }
    EXPECT_THAT(m->resolver.AvailableDevices(), IsEmpty());
    EXPECT_THAT(m->resolver.AvailableEps(), IsEmpty());
  }
  // With an explicit EP the EP check comes first: not available (usage), not "no EPs".
  const Caught caught = Catch([&] { empty.resolver.ResolveDevice(Req("auto"), Catalog().Find("cpu")); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("is not available on this machine"));
}

TEST(Resolver, ExplicitDeviceWithoutEpNamesCompatibleEps) {
  LoadedMachine m(Fixture("cpu_only"));
  const Caught caught = Catch([&] { m.resolver.ResolveDevice(Req("npu")); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("no compatible EP"));
  EXPECT_THAT(caught.message, HasSubstr("QNNExecutionProvider, OpenVINOExecutionProvider, VitisAIExecutionProvider"));
  EXPECT_THAT(caught.message, HasSubstr("CPUExecutionProvider"));
}

TEST(Resolver, ExplicitEpAndDeviceWhereTheEpIsNotOnThatDevice) {
  TestMachine m(Inv({Ep("OpenVINOExecutionProvider", {kGpu, kCpu}), Ep("CPUExecutionProvider", {kCpu})}));
  const Caught caught = Catch([&] { m.resolver.ResolveDevice(Req("npu"), Catalog().Find("openvino")); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("no compatible EP"));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto"), Catalog().Find("openvino")).device, kGpu);
}

TEST(Resolver, AutoWithExplicitEpPicksThatEpsBestDevice) {
  LoadedMachine ov(Fixture("openvino_box"));
  DeviceResolution r = ov.resolver.ResolveDevice(Req("auto"), &ov.machine.catalog.Normalize("openvino"));
  EXPECT_EQ(r.device, kNpu);
  EXPECT_THAT(r.available_devices, ElementsAre(kNpu, kGpu, kCpu));
  r = ov.resolver.ResolveDevice(Req("auto"), &ov.machine.catalog.Normalize("cpu"));
  EXPECT_EQ(r.device, kCpu);
  EXPECT_THAT(r.available_devices, ElementsAre(kCpu));

  LoadedMachine qnn(Fixture("qnn_laptop"));
  r = qnn.resolver.ResolveDevice(Req("auto"), &qnn.machine.catalog.Normalize("dml"));
  EXPECT_EQ(r.device, kGpu);
  r = qnn.resolver.ResolveDevice(Req("gpu"), &qnn.machine.catalog.Normalize("qnn"));
  EXPECT_EQ(r.device, kGpu);
  EXPECT_THAT(r.available_devices, ElementsAre(kNpu, kGpu));
}

// --- ResolveEps ----------------------------------------------------------------------------------------------------

TEST(Resolver, ResolveEpsIsStaticOrderFilteredByWhatIsHere) {
  TestMachine m(Inv({Ep("WebGpuExecutionProvider", {kGpu}), Ep("DmlExecutionProvider", {kGpu}),
                     Ep("CPUExecutionProvider", {kCpu}), Ep("OpenVINOExecutionProvider", {kCpu, kGpu}),
                     Ep("CUDAExecutionProvider", {kGpu}), Ep("QNNExecutionProvider", {kNpu}),
                     Ep("NvTensorRTRTXExecutionProvider", {kGpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kGpu)),
              ElementsAre("NvTensorRTRTXExecutionProvider", "CUDAExecutionProvider", "OpenVINOExecutionProvider",
                          "DmlExecutionProvider", "WebGpuExecutionProvider"));
  // QNN is only reported on the npu here, so it is not a gpu EP on this machine.
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("QNNExecutionProvider"));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kCpu)), ElementsAre("OpenVINOExecutionProvider", "CPUExecutionProvider"));
}

TEST(Resolver, InventoryNamesMatchCanonicalNamesCaseInsensitively) {
  TestMachine m(Inv({Ep("openvinoexecutionprovider", {kNpu}), Ep("CpuExecutionProvider", {kCpu})}));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("OpenVINOExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "openvino");
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
}

TEST(Resolver, UnusableEpsNeverTakePart) {
  LoadedMachine m(Fixture("cpu_only"));
  EXPECT_THAT(m.resolver.AvailableDevices(), ElementsAre(kCpu));
  EXPECT_THAT(Names(m.resolver.AvailableEps()), ElementsAre("CPUExecutionProvider"));
  EXPECT_THAT(m.resolver.ResolveEps(kGpu), IsEmpty());
  const Caught caught = Catch([&] { m.resolver.ResolveDevice(Req("gpu")); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("no compatible EP"));
  const Caught onnx = Catch([&] { m.resolver.ResolveOnnxEp(Req("gpu")); });
  EXPECT_USAGE_ERROR(onnx);
}

// --- ResolveOnnxEp: the primary-device rule applies to the ONNX runtime too ----------------------------------------

TEST(Resolver, OnnxAppliesThePrimaryDeviceRule) {
  LoadedMachine m(Fixture("openvino_box"));
  EpSelection s = m.resolver.ResolveOnnxEp(Req("cpu"));
  EXPECT_EQ(s.ep->name, "CPUExecutionProvider");
  EXPECT_EQ(s.device, kCpu);
  s = m.resolver.ResolveOnnxEp(Req("npu"));
  EXPECT_EQ(s.ep->name, "OpenVINOExecutionProvider");
  EXPECT_EQ(s.device, kNpu);
  s = m.resolver.ResolveOnnxEp(Req("gpu"));
  EXPECT_EQ(s.ep->name, "OpenVINOExecutionProvider");
  EXPECT_EQ(s.device, kGpu);
  s = m.resolver.ResolveOnnxEp(Req("auto"));
  EXPECT_EQ(s.ep->name, "OpenVINOExecutionProvider");
  EXPECT_EQ(s.device, kNpu);
}

TEST(Resolver, OnnxWithExplicitEpUsesThatEp) {
  LoadedMachine m(Fixture("openvino_box"));
  const EpRow& openvino = m.machine.catalog.Normalize("openvino");
  EpSelection s = m.resolver.ResolveOnnxEp(Req("cpu"), &openvino);
  EXPECT_EQ(s.ep, &openvino);
  EXPECT_EQ(s.device, kCpu);
  s = m.resolver.ResolveOnnxEp(Req("auto"), &m.machine.catalog.Normalize("CPUExecutionProvider"));
  EXPECT_EQ(s.ep->name, "CPUExecutionProvider");
  EXPECT_EQ(s.device, kCpu);

  LoadedMachine qnn(Fixture("qnn_laptop"));
  s = qnn.resolver.ResolveOnnxEp(Req("gpu"));
  EXPECT_EQ(s.ep->name, "DmlExecutionProvider");
  EXPECT_EQ(s.device, kGpu);
  s = qnn.resolver.ResolveOnnxEp(Req("gpu"), &qnn.machine.catalog.Normalize("qnn"));
  EXPECT_EQ(s.ep->name, "QNNExecutionProvider");
  EXPECT_EQ(s.device, kGpu);
}

TEST(Resolver, OnnxRejectsDeviceConfig) {
  LoadedMachine m(Fixture("openvino_box"));
  for (const EpRow* ep : {static_cast<const EpRow*>(nullptr), m.machine.catalog.Find("openvino")}) {
    const Caught caught = Catch([&] { m.resolver.ResolveOnnxEp(Req("config"), ep); });
    EXPECT_USAGE_ERROR(caught);
    EXPECT_THAT(caught.message, HasSubstr("--device config"));
  }
}

TEST(Resolver, OnnxPropagatesResolutionErrors) {
  TestMachine empty(Inv({}));
  const Caught none = Catch([&] { empty.resolver.ResolveOnnxEp(Req("auto")); });
  EXPECT_TRUE(none.thrown);
  EXPECT_EQ(none.code, ExitCode::kRuntimeFailure);
  EXPECT_THAT(none.message, HasSubstr("no execution providers detected"));
  // The npu is available (Dml reported there) but no npu-priority EP is: a clean usage error, not a crash.
  TestMachine odd(Inv({Ep("DmlExecutionProvider", {kNpu})}));
  const Caught empty_list = Catch([&] { odd.resolver.ResolveOnnxEp(Req("npu")); });
  EXPECT_USAGE_ERROR(empty_list);
}

// --- Plugin EPs ---------------------------------------------------------------------------------------------------

TEST(Resolver, PluginEpFromInventoryBecomesResolvable) {
  EpStatus sim = Ep("SimNpuExecutionProvider", {kNpu});
  sim.library = "/opt/sim/libsim_npu.so";
  LoadedMachine m(Inv({Ep("QNNExecutionProvider", {kNpu, kGpu}), sim, Ep("CPUExecutionProvider", {kCpu})}));

  EXPECT_THAT(Names(m.machine.catalog.PriorityList(kNpu)),
              ElementsAre("QNNExecutionProvider", "OpenVINOExecutionProvider", "VitisAIExecutionProvider",
                          "SimNpuExecutionProvider"));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("QNNExecutionProvider", "SimNpuExecutionProvider"));

  const EpRow& row = m.machine.catalog.Normalize("SimNpuExecutionProvider");
  EXPECT_TRUE(row.IsPlugin());
  EXPECT_EQ(row.plugin_library, std::filesystem::path("/opt/sim/libsim_npu.so"));
  EXPECT_EQ(&m.machine.catalog.Normalize("simnpuexecutionprovider"), &row);
  EXPECT_EQ(row.devices, std::vector<DeviceKind>{kNpu});

  EpSelection s = m.resolver.ResolveOnnxEp(Req("auto"), &row);
  EXPECT_EQ(s.ep, &row);
  EXPECT_EQ(s.device, kNpu);
  EXPECT_EQ(m.resolver.ResolveDevice(Req("npu"), &row).device, kNpu);
  // Built-ins keep priority over the plugin.
  EXPECT_EQ(GenaiAlias(m.resolver, "npu"), "qnn");
  EXPECT_EQ(m.resolver.ResolveOnnxEp(Req("npu")).ep->name, "QNNExecutionProvider");
  const Caught wrong_device = Catch([&] { m.resolver.ResolveDevice(Req("gpu"), &row); });
  EXPECT_USAGE_ERROR(wrong_device);
  EXPECT_THAT(wrong_device.message, HasSubstr("does not support device 'gpu'"));
}

TEST(Resolver, PluginEpAloneOnTheNpuIsChosenForAuto) {
  EpStatus sim = Ep("SimNpuExecutionProvider", {kNpu});
  sim.library = "/opt/sim/libsim_npu.so";
  LoadedMachine m(Inv({sim, Ep("CPUExecutionProvider", {kCpu})}));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto")).device, kNpu);
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "simnpuexecutionprovider");
  EXPECT_EQ(m.resolver.ResolveOnnxEp(Req("npu")).ep->name, "SimNpuExecutionProvider");
}

TEST(Resolver, UnknownEpWithoutPluginLibraryIsNotAccepted) {
  LoadedMachine m(Inv({Ep("AzureExecutionProvider", {kCpu}), Ep("CPUExecutionProvider", {kCpu})}));
  EXPECT_EQ(m.machine.catalog.Find("AzureExecutionProvider"), nullptr);
  const Caught caught = Catch([&] { m.machine.catalog.Normalize("AzureExecutionProvider"); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("unknown execution provider"));
  EXPECT_THAT(Names(m.resolver.AvailableEps()), ElementsAre("CPUExecutionProvider"));
}

TEST(Resolver, PluginManifestRowCollidingWithBuiltInIsAUsageError) {
  PluginLibrary plugin;
  plugin.registration_name = "MyQnn";
  plugin.library = "/opt/myqnn/libmyqnn.so";
  EpRow row;
  row.name = "MyQnnExecutionProvider";
  row.aliases = {"qnn"};
  row.devices = {kNpu};
  row.plugin_library = plugin.library;
  plugin.manifest_row = row;
  plugin.origin = "--ep-library MyQnn=/opt/myqnn/libmyqnn.so";
  const Caught caught = Catch([&] { Load(Inv({Ep("CPUExecutionProvider", {kCpu})}), {plugin}); });
  EXPECT_USAGE_ERROR(caught);
  EXPECT_THAT(caught.message, HasSubstr("QNNExecutionProvider"));
  EXPECT_THAT(caught.message, HasSubstr("--ep-library MyQnn=/opt/myqnn/libmyqnn.so"));
}

// --- The five fixture machines -------------------------------------------------------------------------------------

TEST(ResolverFixtureMachines, QnnLaptop) {
  LoadedMachine m(Fixture("qnn_laptop"));
  EXPECT_THAT(m.resolver.AvailableDevices(), ElementsAre(kNpu, kGpu, kCpu));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto")).device, kNpu);
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("QNNExecutionProvider"));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kGpu)), ElementsAre("QNNExecutionProvider", "DmlExecutionProvider"));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kCpu)), ElementsAre("CPUExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "qnn");
  EXPECT_EQ(GenaiAlias(m.resolver, "npu"), "qnn");
  EXPECT_EQ(GenaiAlias(m.resolver, "gpu"), "dml");
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
  EXPECT_EQ(m.resolver.ResolveOnnxEp(Req("auto")).ep->name, "QNNExecutionProvider");
  EXPECT_EQ(m.resolver.ResolveOnnxEp(Req("gpu")).ep->name, "DmlExecutionProvider");
}

TEST(ResolverFixtureMachines, OpenVinoBox) {
  LoadedMachine m(Fixture("openvino_box"));
  EXPECT_THAT(m.resolver.AvailableDevices(), ElementsAre(kNpu, kGpu, kCpu));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto")).device, kNpu);
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("OpenVINOExecutionProvider"));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kGpu)), ElementsAre("OpenVINOExecutionProvider"));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kCpu)), ElementsAre("OpenVINOExecutionProvider", "CPUExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "openvino");
  EXPECT_EQ(GenaiAlias(m.resolver, "npu"), "openvino");
  EXPECT_EQ(GenaiAlias(m.resolver, "gpu"), "openvino");
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
}

TEST(ResolverFixtureMachines, VitisAiLaptop) {
  LoadedMachine m(Fixture("vitisai_laptop"));
  EXPECT_THAT(m.resolver.AvailableDevices(), ElementsAre(kNpu, kGpu, kCpu));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto")).device, kNpu);
  EXPECT_THAT(Names(m.resolver.ResolveEps(kNpu)), ElementsAre("VitisAIExecutionProvider"));
  EXPECT_THAT(Names(m.resolver.ResolveEps(kGpu)), ElementsAre("DmlExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "vitisai");
  EXPECT_EQ(GenaiAlias(m.resolver, "npu"), "vitisai");
  EXPECT_EQ(GenaiAlias(m.resolver, "gpu"), "dml");
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
  EXPECT_EQ(m.resolver.ResolveOnnxEp(Req("auto")).ep->name, "VitisAIExecutionProvider");
}

TEST(ResolverFixtureMachines, CudaServer) {
  LoadedMachine m(Fixture("cuda_server"));
  EXPECT_THAT(m.resolver.AvailableDevices(), ElementsAre(kGpu, kCpu));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto")).device, kGpu);
  EXPECT_THAT(Names(m.resolver.ResolveEps(kGpu)), ElementsAre("TensorrtExecutionProvider", "CUDAExecutionProvider"));
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "tensorrt");
  EXPECT_EQ(GenaiAlias(m.resolver, "gpu"), "tensorrt");
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
  const Caught npu = Catch([&] { m.resolver.ResolveGenaiEp(Req("npu")); });
  EXPECT_USAGE_ERROR(npu);
  EXPECT_THAT(npu.message, HasSubstr("no compatible EP"));
  EpSelection s = m.resolver.ResolveOnnxEp(Req("auto"), &m.machine.catalog.Normalize("cuda"));
  EXPECT_EQ(s.ep->name, "CUDAExecutionProvider");
  EXPECT_EQ(s.device, kGpu);
  EXPECT_EQ(m.resolver.ResolveOnnxEp(Req("auto")).ep->name, "TensorrtExecutionProvider");
}

TEST(ResolverFixtureMachines, CpuOnly) {
  LoadedMachine m(Fixture("cpu_only"));
  EXPECT_THAT(m.resolver.AvailableDevices(), ElementsAre(kCpu));
  EXPECT_EQ(m.resolver.ResolveDevice(Req("auto")).device, kCpu);
  EXPECT_EQ(GenaiAlias(m.resolver, "auto"), "cpu");
  EXPECT_EQ(GenaiAlias(m.resolver, "cpu"), "cpu");
  for (const char* device : {"npu", "gpu"}) {
    const Caught caught = Catch([&] { m.resolver.ResolveGenaiEp(Req(device)); });
    EXPECT_USAGE_ERROR(caught);
    EXPECT_THAT(caught.message, HasSubstr("no compatible EP"));
  }
  EpSelection s = m.resolver.ResolveOnnxEp(Req("auto"));
  EXPECT_EQ(s.ep->name, "CPUExecutionProvider");
  EXPECT_EQ(s.device, kCpu);
}

}  // namespace
}  // namespace modelkit::device
