#include "device/inventory_json.h"

#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/temp_dir.h"

namespace modelkit::device {
namespace {

using nlohmann::json;

// Runs `body`, expecting a usage error whose message contains every fragment.
template <typename Body>
void ExpectUsageError(Body body, std::initializer_list<std::string> fragments) {
  try {
    body();
    FAIL() << "expected a usage error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    for (const std::string& fragment : fragments)
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
          << "message: " << error.what() << "\nmissing: " << fragment;
  }
}

TEST(InventoryJson, ReadsDevicesAndEps) {
  const json machine = json::parse(R"({
    "ort_version": "1.30.0",
    "devices": [{"type": "NPU", "vendor": "Qualcomm", "name": "Hexagon", "vendor_id": 19969, "device_id": 7}],
    "execution_providers": [
      {"name": "QNNExecutionProvider", "devices": ["npu", "gpu"], "usable": true},
      {"name": "CUDAExecutionProvider", "devices": ["gpu"], "usable": false, "reason": "no library",
       "source": "available_providers"},
      {"name": "SimNpu", "devices": ["npu"], "library": "/x/libsim.so"}
    ]})");
  const Inventory inventory = InventoryFromJson(machine, "machine.json");
  EXPECT_EQ(inventory.ort_version, "1.30.0");
  ASSERT_EQ(inventory.devices.size(), 1u);
  EXPECT_EQ(inventory.devices[0].kind, DeviceKind::kNpu);
  EXPECT_EQ(inventory.devices[0].vendor, "Qualcomm");
  EXPECT_EQ(inventory.devices[0].name, "Hexagon");
  EXPECT_EQ(inventory.devices[0].vendor_id, 19969u);
  EXPECT_EQ(inventory.devices[0].device_id, 7u);
  ASSERT_EQ(inventory.eps.size(), 3u);
  EXPECT_EQ(inventory.eps[0].devices, (std::vector<DeviceKind>{DeviceKind::kNpu, DeviceKind::kGpu}));
  EXPECT_TRUE(inventory.eps[0].usable);
  EXPECT_EQ(inventory.eps[0].source, EpSource::kEpDevices);
  EXPECT_FALSE(inventory.eps[1].usable);
  EXPECT_EQ(inventory.eps[1].reason, "no library");
  EXPECT_EQ(inventory.eps[1].source, EpSource::kAvailableProviders);
  EXPECT_TRUE(inventory.eps[2].usable) << "usable defaults to true";
  ASSERT_TRUE(inventory.eps[2].library.has_value());
  EXPECT_EQ(inventory.eps[2].library->string(), "/x/libsim.so");
  EXPECT_EQ(inventory.FindEp("CUDAExecutionProvider"), &inventory.eps[1]);
  EXPECT_EQ(inventory.FindEp("cuda"), nullptr) << "FindEp matches ORT's exact spelling only";
}

TEST(InventoryJson, NamesTheJsonPathOfABadValue) {
  ExpectUsageError([] { InventoryFromJson(json::array(), "m.json"); }, {"m.json", "$", "JSON object"});
  ExpectUsageError([] { InventoryFromJson(json::parse(R"({"devices": [{"type": "xpu"}]})"), "m.json"); },
                   {"m.json", "$.devices[0].type", "unknown device 'xpu'"});
  ExpectUsageError(
      [] {
        InventoryFromJson(json::parse(R"({"execution_providers": [{"name": "a"}, {"devices": ["cpu"]}]})"), "m.json");
      },
      {"$.execution_providers[1].name", "missing"});
  ExpectUsageError(
      [] { InventoryFromJson(json::parse(R"({"execution_providers": [{"name": "a", "usable": "yes"}]})"), "m"); },
      {"$.execution_providers[0].usable", "true or false"});
  ExpectUsageError(
      [] { InventoryFromJson(json::parse(R"({"execution_providers": [{"name": "a", "source": "x"}]})"), "m"); },
      {"$.execution_providers[0].source", "unknown source 'x'"});
  ExpectUsageError([] { InventoryFromJson(json::parse(R"({"devices": {}})"), "m"); }, {"$.devices", "array"});
}

TEST(InventoryJson, FileErrorsNameTheFile) {
  test::TempDir dir;
  ExpectUsageError([&] { InventoryFromJsonFile(dir.path() / "absent.json"); }, {"absent.json", "does not exist"});
  const auto broken = dir.Write("broken.json", "{\"devices\": [");
  ExpectUsageError([&] { InventoryFromJsonFile(broken); }, {"broken.json", "not valid JSON"});
}

}  // namespace
}  // namespace modelkit::device
