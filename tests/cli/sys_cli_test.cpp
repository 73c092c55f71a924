// `modelkit sys` as a user runs it: exit codes, stderr error lines, text and JSON on stdout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli.h"
#include "support/lavapipe.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

using nlohmann::json;
using test::ProcessResult;

ProcessResult Modelkit(std::vector<std::string> args, const std::map<std::string, std::string>& env = {}) {
  return test::RunModelkit(std::move(args), env);
}

void ExpectUsageError(const ProcessResult& result, const std::string& fragment) {
  test::ExpectErrorLine(result, 2, fragment);
}

const json* FindEp(const json& report, const std::string& name) {
  for (const json& ep : report.at("execution_providers")) {
    if (ep.at("name") == name) return &ep;
  }
  return nullptr;
}

TEST(SysCli, TextListsCpuUsableAndCudaTensorRtUnusable) {
  const ProcessResult result = Modelkit({"sys"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.stderr_text, "") << "discovery probes must not leak native warnings";
  const std::string& out = result.stdout_text;
  EXPECT_NE(out.find("ONNX Runtime 1.30.0"), std::string::npos) << out;
  EXPECT_NE(out.find("Devices"), std::string::npos);
  EXPECT_NE(out.find("Execution providers"), std::string::npos);
  EXPECT_NE(out.find("  1     cpu"), std::string::npos) << out;
  EXPECT_NE(out.find("CPUExecutionProvider       cpu       cpu      yes     no"), std::string::npos) << out;
  EXPECT_NE(out.find("CUDAExecutionProvider      cuda      gpu      no      no         Failed to load library"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("TensorrtExecutionProvider  tensorrt  gpu      no"), std::string::npos) << out;
}

TEST(SysCli, JsonReportHasTheDocumentedShape) {
  const ProcessResult result = Modelkit({"sys", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_EQ(report.at("schema_version"), 1);
  EXPECT_EQ(report.at("ort_version"), "1.30.0");
  ASSERT_TRUE(report.at("devices").is_array());
  const json& first = report.at("devices").at(0);
  EXPECT_EQ(first.at("rank"), 1);
  const json* cpu = FindEp(report, "CPUExecutionProvider");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->at("alias"), "cpu");
  EXPECT_EQ(cpu->at("usable"), true);
  EXPECT_TRUE(cpu->at("reason").is_null());
  EXPECT_EQ(cpu->at("devices"), json::array({"cpu"}));
  for (const char* name : {"CUDAExecutionProvider", "TensorrtExecutionProvider"}) {
    const json* ep = FindEp(report, name);
    ASSERT_NE(ep, nullptr) << name;
    EXPECT_EQ(ep->at("usable"), false);
    EXPECT_NE(ep->at("reason").get<std::string>().find("libonnxruntime_providers_shared.so"), std::string::npos);
    EXPECT_EQ(ep->at("source"), "available_providers");
  }
  // WebGPU's usability and the presence of a ranked GPU device agree.
  const json* webgpu = FindEp(report, "WebGpuExecutionProvider");
  ASSERT_NE(webgpu, nullptr);
  bool ranked_gpu = false;
  for (const json& device : report.at("devices"))
    ranked_gpu |= device.at("type") == "gpu" && !device.at("rank").is_null();
  EXPECT_EQ(webgpu->at("usable").get<bool>(), ranked_gpu);
  if (!ranked_gpu) {
    EXPECT_EQ(first.at("type"), "cpu");
  }
}

bool EpUsable(const json& report, const std::string& name) {
  const json* ep = FindEp(report, name);
  return ep != nullptr && ep->at("usable").get<bool>();
}

// With the software Vulkan driver, WebGPU is a usable GPU-class EP and the GPU outranks the CPU.
TEST(SysCli, WebGpuIsUsableWithAVulkanAdapter) {
  const ProcessResult result = Modelkit({"sys", "--format", "json"}, test::LavapipeEnvironment());
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  EXPECT_TRUE(EpUsable(report, "WebGpuExecutionProvider")) << result.stdout_text;
  const json& first = report.at("devices").at(0);
  EXPECT_EQ(first.at("type"), "gpu");
  EXPECT_EQ(first.at("rank"), 1);
  EXPECT_EQ(first.at("execution_providers"), json::array({"WebGpuExecutionProvider"}));
}

// Without one, WebGPU is listed with the reason and no GPU device is ranked.
TEST(SysCli, WebGpuIsUnusableWithoutAVulkanAdapter) {
  const ProcessResult result =
      Modelkit({"sys", "--format", "json"}, {{"VK_ICD_FILENAMES", "/nonexistent/icd.json"}, {"LD_LIBRARY_PATH", ""}});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.stderr_text, "");
  const json report = json::parse(result.stdout_text);
  const json* webgpu = FindEp(report, "WebGpuExecutionProvider");
  ASSERT_NE(webgpu, nullptr);
  EXPECT_FALSE(webgpu->at("usable").get<bool>());
  EXPECT_NE(webgpu->at("reason").get<std::string>().find("adapter"), std::string::npos) << webgpu->dump();
  EXPECT_EQ(report.at("devices").at(0).at("type"), "cpu");
}

TEST(SysCli, ListFlagsSelectSections) {
  const ProcessResult devices = Modelkit({"sys", "--list-device"});
  ASSERT_EQ(devices.exit_code, 0);
  EXPECT_NE(devices.stdout_text.find("Devices"), std::string::npos);
  EXPECT_EQ(devices.stdout_text.find("Execution providers"), std::string::npos);

  const ProcessResult eps = Modelkit({"sys", "--list-ep", "-f", "JSON"});
  ASSERT_EQ(eps.exit_code, 0) << eps.stderr_text;
  const json report = json::parse(eps.stdout_text);
  EXPECT_TRUE(report.contains("execution_providers"));
  EXPECT_FALSE(report.contains("devices"));
}

TEST(SysCli, BadFlagsAreOneErrorLineWithExitTwo) {
  ExpectUsageError(Modelkit({"sys", "--bogus"}), "--bogus");
  ExpectUsageError(Modelkit({"sys", "--format", "xml"}), "xml");
  ExpectUsageError(Modelkit({"frobnicate"}), "frobnicate");
  ExpectUsageError(Modelkit({}), "subcommand");
  ExpectUsageError(Modelkit({"sys", "--ep-library", "NoEqualsSign"}), "expected NAME=PATH");
  ExpectUsageError(Modelkit({"sys", "--ep-library", "X=/no/such/libx.so"}), "/no/such/libx.so");
  ExpectUsageError(Modelkit({"sys", "--ep-catalog", "/no/such/catalog.json"}), "/no/such/catalog.json");
  ExpectUsageError(Modelkit({"sys"}, {{"MODELKIT_EP_LIBRARIES", "broken"}}), "MODELKIT_EP_LIBRARIES");
}

// Output that cannot be written is a failure (exit 1 and one error line), not a lost report with exit 0.
TEST(SysCli, OutputToAFullDeviceIsExitOne) {
  for (const char* format : {"json", "text"}) {
    const ProcessResult result = test::RunProcess(
        {"/bin/sh", "-c", std::string("exec \"$0\" sys -f ") + format + " > /dev/full", MODELKIT_BINARY});
    test::ExpectErrorLine(result, 1, "cannot write the output to standard output: No space left on device");
  }
}

TEST(SysCli, BrokenPluginLibraryIsListedAsUnusable) {
  test::TempDir dir;
  const auto fake = dir.Write("libfake_ep.so", "not an ELF file");
  const ProcessResult result =
      Modelkit({"sys", "--list-ep", "--format", "json", "--ep-library", "FakeEp=" + fake.string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  const json* fake_ep = FindEp(report, "FakeEp");
  ASSERT_NE(fake_ep, nullptr) << result.stdout_text;
  EXPECT_EQ(fake_ep->at("usable"), false);
  EXPECT_EQ(fake_ep->at("plugin"), true);
  EXPECT_EQ(fake_ep->at("library"), fake.string());
}

TEST(SysCli, HelpAndVersionExitZero) {
  const ProcessResult help = Modelkit({"sys", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.stdout_text.find("--list-device"), std::string::npos);
  const ProcessResult version = Modelkit({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.stdout_text.find("modelkit 0.1.0"), std::string::npos) << version.stdout_text;
}

}  // namespace
}  // namespace modelkit
