// `modelkit sys` with the simulated NPU plugin registered, as a user runs it: the NPU device ranks first and the
// plugin EP is usable, with the catalog row its manifest gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/process.h"

namespace modelkit {
namespace {

using nlohmann::json;
using test::ProcessResult;

const std::filesystem::path kLibrary = MODELKIT_SIM_NPU_LIBRARY;

ProcessResult Modelkit(std::vector<std::string> args, const std::map<std::string, std::string>& env = {}) {
  args.insert(args.begin(), MODELKIT_BINARY);
  std::map<std::string, std::string> clean_env = {{"MODELKIT_EP_LIBRARIES", ""}, {"MODELKIT_EP_CATALOG", ""}};
  for (const auto& [key, value] : env) clean_env[key] = value;
  return test::RunProcess(args, clean_env);
}

const json* FindEp(const json& report, const std::string& name) {
  for (const json& ep : report.at("execution_providers")) {
    if (ep.at("name") == name) return &ep;
  }
  return nullptr;
}

TEST(SimNpuCli, RegisteredLibraryShowsAnNpuRankedFirstAndAUsableEp) {
  const ProcessResult result =
      Modelkit({"sys", "--format", "json", "--ep-library", "SimNpu.virtual=" + kLibrary.string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.stderr_text, "");
  const json report = json::parse(result.stdout_text);
  const json& first = report.at("devices").at(0);
  EXPECT_EQ(first.at("rank"), 1);
  EXPECT_EQ(first.at("type"), "npu");
  EXPECT_EQ(first.at("vendor"), "modelkit");
  EXPECT_EQ(first.at("execution_providers"), json::array({"SimNpuExecutionProvider"}));
  const json* npu = FindEp(report, "SimNpuExecutionProvider");
  ASSERT_NE(npu, nullptr) << result.stdout_text;
  EXPECT_EQ(npu->at("usable"), true) << npu->dump();
  EXPECT_EQ(npu->at("alias"), "simnpu") << "from libsim_npu.manifest.json beside the library";
  EXPECT_EQ(npu->at("devices"), json::array({"npu"}));
  EXPECT_EQ(npu->at("ep_context"), true);
  EXPECT_EQ(npu->at("plugin"), true);
  EXPECT_EQ(npu->at("library"), kLibrary.string());
}

TEST(SimNpuCli, TextReportListsTheNpuAndTheUsableEp) {
  const ProcessResult result = Modelkit({"sys"}, {{"MODELKIT_EP_LIBRARIES", "SimNpu.virtual=" + kLibrary.string()}});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string& out = result.stdout_text;
  EXPECT_NE(out.find("  1     npu     modelkit  Simulated NPU (SimNpuExecutionProvider)"), std::string::npos) << out;
  EXPECT_NE(out.find("SimNpuExecutionProvider    simnpu    npu      yes"), std::string::npos) << out;
}

// The example catalog beside the library registers it twice: two EPs, each on its own virtual NPU.
TEST(SimNpuCli, ExampleCatalogRegistersTwoEpNamesFromOneLibrary) {
  const std::filesystem::path catalog = kLibrary.parent_path() / "sim_npu_catalog.json";
  ASSERT_TRUE(std::filesystem::exists(catalog));
  const ProcessResult result = Modelkit({"sys", "--list-ep", "--format", "json", "--ep-catalog", catalog.string()});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const json report = json::parse(result.stdout_text);
  for (const auto& [name, alias] :
       {std::pair{"SimNpuExecutionProvider", "simnpu"}, std::pair{"SimNpu2ExecutionProvider", "simnpu2"}}) {
    const json* ep = FindEp(report, name);
    ASSERT_NE(ep, nullptr) << name << "\n" << result.stdout_text;
    EXPECT_EQ(ep->at("usable"), true) << ep->dump();
    EXPECT_EQ(ep->at("alias"), alias);
    EXPECT_EQ(ep->at("devices"), json::array({"npu"}));
  }
}

}  // namespace
}  // namespace modelkit
