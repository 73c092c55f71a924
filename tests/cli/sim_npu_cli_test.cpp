// `modelkit sys` with the simulated NPU plugin registered, as a user runs it: the NPU device ranks first and the
// plugin EP is usable, with the catalog row its manifest gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

using nlohmann::json;
using test::ProcessResult;

const std::filesystem::path kLibrary = MODELKIT_SIM_NPU_LIBRARY;

ProcessResult Modelkit(std::vector<std::string> args, const std::map<std::string, std::string>& env = {}) {
  return test::RunModelkit(std::move(args), env);
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

// The plugins shipped beside the binary (<prefix>/lib/modelkit/ep_catalog.json) are registered without any flag: the
// sim NPU is part of this build's machine, and --device auto and --ep simnpu reach it.
TEST(SimNpuCli, DefaultCatalogBesideTheBinaryRegistersTheSimulatedNpu) {
  const std::map<std::string, std::string> default_catalog = {{"MODELKIT_EP_CATALOG", ""}};
  const ProcessResult sys = Modelkit({"sys", "--format", "json"}, default_catalog);
  ASSERT_EQ(sys.exit_code, 0) << sys.stderr_text;
  const json report = json::parse(sys.stdout_text);
  const json* sim = FindEp(report, "SimNpuExecutionProvider");
  ASSERT_NE(sim, nullptr) << sys.stdout_text;
  EXPECT_TRUE(sim->at("usable").get<bool>());
  EXPECT_EQ(report.at("devices").at(0).at("type"), "npu");
  EXPECT_EQ(FindEp(report, "SimNpu2ExecutionProvider"), nullptr) << "the default catalog ships one name";

  const std::string model = std::string(MODELKIT_TEST_MODELS_DIR) + "/matmul_nbits.onnx";
  for (const std::vector<std::string>& route :
       {std::vector<std::string>{}, {"--device", "npu"}, {"--ep", "simnpu"}, {"--ep", "SimNpuExecutionProvider"}}) {
    std::vector<std::string> args = {"perf",
                                     "-m",
                                     model,
                                     "--iterations",
                                     "3",
                                     "--warmup",
                                     "1",
                                     "-f",
                                     "json",
                                     "-o",
                                     (std::filesystem::temp_directory_path() / "modelkit-simnpu-perf.json").string(),
                                     "--overwrite"};
    args.insert(args.end(), route.begin(), route.end());
    const ProcessResult perf = Modelkit(args, default_catalog);
    ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
    const json info = json::parse(perf.stdout_text).at("benchmark_info");
    EXPECT_EQ(info.at("ep"), "SimNpuExecutionProvider");
    EXPECT_EQ(info.at("resolved_device"), "npu");
  }
  std::filesystem::remove(std::filesystem::temp_directory_path() / "modelkit-simnpu-perf.json");
}

// ORT's placement reaches the report: with op_allow=Relu the simulated NPU gets exactly det.onnx's Relu nodes (counted
// here by the onnx package, independently of ORT), everything else falls back to the CPU and the user is told.
TEST(SimNpuCli, PerfReportsPlacementAndWarnsOfFallback) {
  const std::map<std::string, std::string> default_catalog = {{"MODELKIT_EP_CATALOG", ""}};
  const std::string det = std::string(MODELKIT_OCR_MODELS_DIR) + "/det.onnx";
  const ProcessResult count = test::RunProcess(
      {"/usr/bin/python3", "-c",
       "import onnx, sys; print(sum(n.op_type == 'Relu' for n in onnx.load(sys.argv[1]).graph.node))", det});
  ASSERT_EQ(count.exit_code, 0) << count.stderr_text;
  const int relu_nodes = std::stoi(count.stdout_text);
  ASSERT_GT(relu_nodes, 0);

  const test::TempDir dir;
  const std::vector<std::string> args = {"perf",          "-m",           det, "--ep",     "simnpu", "--ep-options",
                                         "op_allow=Relu", "--iterations", "2", "--warmup", "0"};
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"-f", "json", "-o", (dir.path() / "r.json").string()});
  const ProcessResult perf = Modelkit(json_args, default_catalog);
  ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
  const json report = json::parse(perf.stdout_text);
  ASSERT_EQ(report.at("placement").size(), 1u);
  const json& placement = report.at("placement")[0];
  EXPECT_EQ(placement.at("session"), "det.onnx");
  EXPECT_EQ(placement.at("requested_ep"), "SimNpuExecutionProvider");
  int64_t summed = 0, npu_nodes = -1;
  for (const json& share : placement.at("eps")) {
    summed += share.at("nodes").get<int64_t>();
    if (share.at("ep") == "SimNpuExecutionProvider") {
      npu_nodes = share.at("nodes");
      EXPECT_EQ(share.at("op_types"), json({{"Relu", relu_nodes}}));
      EXPECT_GE(share.at("partitions").get<int64_t>(), 1);
    }
  }
  EXPECT_EQ(npu_nodes, relu_nodes);
  EXPECT_EQ(summed, placement.at("nodes").get<int64_t>());
  const std::string shortfall = "SimNpuExecutionProvider ran " + std::to_string(relu_nodes) + " of " +
                                placement.at("nodes").dump() + " nodes of det.onnx; ";
  const std::vector<std::string> warnings = test::RunWarnings(report.at("warnings"));
  ASSERT_EQ(warnings.size(), 1u) << report.at("warnings");
  EXPECT_EQ(warnings[0].rfind(shortfall, 0), 0u) << report.at("warnings");
  EXPECT_NE(perf.stderr_text.find("warning: " + shortfall), std::string::npos) << perf.stderr_text;

  std::vector<std::string> text_args = args;
  text_args.insert(text_args.end(), {"-o", (dir.path() / "t.json").string()});
  const ProcessResult text = Modelkit(text_args, default_catalog);
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("\nPlacement: det.onnx: CPU "), std::string::npos) << text.stdout_text;
  EXPECT_NE(text.stdout_text.find(", SimNpu " + std::to_string(relu_nodes) + " (Relu)\n"), std::string::npos)
      << text.stdout_text;
  EXPECT_EQ(text.stderr_text.find("ONNX Runtime"), std::string::npos) << "ORT's own log only with -v";

  // -v echoes ORT's log through modelkit: plain lines, none of ORT's console colours.
  std::vector<std::string> verbose_args = args;
  verbose_args.insert(verbose_args.end(), {"-v", "-o", (dir.path() / "v.json").string()});
  const ProcessResult verbose = Modelkit(verbose_args, default_catalog);
  ASSERT_EQ(verbose.exit_code, 0) << verbose.stderr_text;
  EXPECT_NE(verbose.stderr_text.find("ONNX Runtime warning: Some nodes were not assigned"), std::string::npos)
      << verbose.stderr_text;
  EXPECT_EQ(verbose.stderr_text.find('\033'), std::string::npos) << verbose.stderr_text;

  // --fail-on-fallback: exit 4 before any benchmark, and no report.
  std::vector<std::string> strict = args;
  strict.insert(strict.end(), {"--fail-on-fallback", "-o", (dir.path() / "strict.json").string()});
  test::ExpectErrorLine(Modelkit(strict, default_catalog), 4, shortfall);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "strict.json"));
}

TEST(SimNpuCli, FullPlacementPassesFailOnFallback) {
  const std::map<std::string, std::string> default_catalog = {{"MODELKIT_EP_CATALOG", ""}};
  const test::TempDir dir;
  for (const std::string ep : {"simnpu", "cpu"}) {
    const ProcessResult perf = Modelkit(
        {"perf", "-m", std::string(MODELKIT_TEST_MODELS_DIR) + "/matmul_nbits.onnx", "--ep", ep, "--iterations", "2",
         "--fail-on-fallback", "-f", "json", "-o", (dir.path() / (ep + ".json")).string()},
        default_catalog);
    ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
    const json report = json::parse(perf.stdout_text);
    const json& placement = report.at("placement")[0];
    ASSERT_EQ(placement.at("eps").size(), 1u) << placement;
    EXPECT_EQ(placement.at("eps")[0].at("ep"), report.at("benchmark_info").at("ep"));
    EXPECT_EQ(placement.at("eps")[0].at("nodes"), placement.at("nodes"));
    EXPECT_EQ(test::RunWarnings(report.at("warnings")), std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace modelkit
