// `modelkit compile` with the simulated NPU shipped in the build's default catalog, and the child-process runner
// that bounds a compile in time and survives a compiler that fails, crashes or hangs.
#include <signal.h>

#include <fstream>

#include <gtest/gtest.h>

#include "compile/compile_process.h"
#include "modelkit/compile/epcontext_compile.h"
#include "modelkit/compile/isolated_compile.h"
#include "support/cli.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;
using test::ProcessResult;

const std::map<std::string, std::string> kDefaultCatalog = {{"MODELKIT_EP_CATALOG", ""}};
const fs::path kModel = fs::path(MODELKIT_TEST_MODELS_DIR) / "matmul_nbits.onnx";

std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

ProcessResult Compile(std::vector<std::string> args) {
  args.insert(args.begin(), "compile");
  return test::RunModelkit(std::move(args), kDefaultCatalog);
}

TEST(CompileCli, ExternalContextModelRunsOnTheNpuAndNowhereElse) {
  test::TempDir dir;
  const fs::path out = dir.path() / "model_ctx.onnx";
  const ProcessResult result = Compile({"-m", kModel.string(), "-o", out.string(), "--ep", "simnpu"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("Success! Model compiled"), std::string::npos) << result.stdout_text;
  const std::vector<std::string> files = Listing(dir.path());
  ASSERT_EQ(files.size(), 2u) << "the model and its context binary";
  EXPECT_EQ(files[0], "model_ctx.onnx");
  EXPECT_EQ(files[1].substr(files[1].size() - 4), ".bin") << files[1];
  EXPECT_TRUE(compile::ContainsEpContextNode(out));
  EXPECT_FALSE(compile::ContainsEpContextNode(kModel));

  const ProcessResult on_npu = test::RunModelkit(
      {"perf", "-m", out.string(), "--ep", "simnpu", "--iterations", "3", "-o", (dir.path() / "r.json").string()},
      kDefaultCatalog);
  EXPECT_EQ(on_npu.exit_code, 0) << on_npu.stderr_text;
  const ProcessResult on_cpu = test::RunModelkit(
      {"perf", "-m", out.string(), "--ep", "cpu", "--iterations", "3", "-o", (dir.path() / "c.json").string()});
  EXPECT_NE(on_cpu.exit_code, 0);
  EXPECT_NE(on_cpu.stderr_text.find("SimNpuExecutionProvider"), std::string::npos) << on_cpu.stderr_text;
  EXPECT_FALSE(fs::exists(dir.path() / "c.json"));
}

TEST(CompileCli, EmbeddedContextIsOneFile) {
  test::TempDir dir;
  const ProcessResult result =
      Compile({"-m", kModel.string(), "-o", (dir.path() / "m.onnx").string(), "--device", "npu", "--embed"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"m.onnx"});
}

TEST(CompileCli, BadRequestsAreOneErrorLineAndLeaveNothing) {
  test::TempDir dir;
  const std::string out = (dir.path() / "m.onnx").string();
  test::ExpectErrorLine(Compile({"-m", kModel.string(), "-o", out, "--ep", "cpu"}), 2,
                        "does not support EPContext compilation; EPContext-capable EPs here: simnpu");
  test::ExpectErrorLine(Compile({"-m", (dir.path() / "absent.onnx").string(), "-o", out}), 2, "ONNX file not found");
  test::ExpectErrorLine(Compile({"-m", kModel.string(), "-o", out, "--ep-options", "fail_compile=1"}), 1,
                        "the NPU compiler failed");
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{}) << "a failed compile leaves nothing";
  ASSERT_EQ(Compile({"-m", kModel.string(), "-o", out, "--embed"}).exit_code, 0);
  test::ExpectErrorLine(Compile({"-m", out, "-o", (dir.path() / "again.onnx").string()}), 2,
                        "already an EPContext model");
  std::ifstream before(out, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(before)), std::istreambuf_iterator<char>());
  test::ExpectErrorLine(Compile({"-m", kModel.string(), "-o", out}), 2, "--overwrite");
  std::ifstream after(out, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(after)), std::istreambuf_iterator<char>()), bytes);
  // The output may not be the source itself, whatever --overwrite says.
  const fs::path source = dir.path() / "source.onnx";
  fs::copy_file(kModel, source);
  test::ExpectErrorLine(Compile({"-m", source.string(), "-o", source.string(), "--overwrite"}), 2,
                        "is the source model itself");
  EXPECT_EQ(fs::file_size(source), fs::file_size(kModel));
  test::ExpectErrorLine(Compile({"-m", kModel.string(), "-o", ""}), 2, "--output: must not be empty");
}

TEST(CompileCli, ACompilerThatCrashesOrHangsIsOneErrorLineAndLeavesNothing) {
  test::TempDir dir;
  const std::string out = (dir.path() / "m.onnx").string();
  test::ExpectErrorLine(
      Compile({"-m", kModel.string(), "-o", out, "--ep-options", "crash_compile=1"}), 1,
      "the simnpu compiler crashed (signal 6) while compiling '" + kModel.string() +
          "'; nothing was written (its last message: SimNpuExecutionProvider: the NPU compiler crashed");
  test::ExpectErrorLine(
      Compile({"-m", kModel.string(), "-o", out, "--ep-options", "compile_delay_ms=30000", "--compile-timeout", "1"}),
      1, "timed out after 1.000 s and was stopped; nothing was written (raise the limit with");
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{}) << "no output, no staging folder";
  test::ExpectErrorLine(Compile({"-m", kModel.string(), "-o", out, "--compile-timeout", "0"}), 2, "--compile-timeout");
}

TEST(CompileCli, ACompilerThatCrashesAtExitAfterWritingItsModelIsSalvaged) {
  test::TempDir dir;
  const fs::path out = dir.path() / "m.onnx";
  const ProcessResult result =
      Compile({"-m", kModel.string(), "-o", out.string(), "--embed", "--ep-options", "crash_at_exit=1"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("warning: the simnpu compiler crashed (signal 6) after writing a complete "
                                    "EPContext model; keeping '" +
                                    out.string() + "'"),
            std::string::npos)
      << result.stderr_text;
  EXPECT_EQ(result.stderr_text.find("error:"), std::string::npos) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("Output:  " + out.string()), std::string::npos) << result.stdout_text;
  EXPECT_TRUE(compile::ContainsEpContextNode(out));
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"m.onnx"});
}

class CompileProcess : public ::testing::Test {
 protected:
  compile::ChildResult Run(const std::vector<std::string>& extra, std::chrono::milliseconds timeout) {
    std::vector<std::string> argv = {MODELKIT_BINARY, "compile", "-m",
                                     kModel.string(), "-o",      (dir_.path() / "m.onnx").string(),
                                     "--ep",          "simnpu",  compile::kInProcessFlag};
    argv.insert(argv.end(), extra.begin(), extra.end());
    unsetenv("MODELKIT_EP_CATALOG");  // the child finds the simulated NPU in the build's default catalog
    return compile::RunChildWithTimeout(argv, timeout);
  }
  test::TempDir dir_;
};

TEST_F(CompileProcess, SuccessFailureCrashAndTimeoutAreToldApart) {
  const compile::ChildResult ok = Run({}, std::chrono::seconds(60));
  EXPECT_EQ(ok.outcome, compile::ChildOutcome::kSucceeded) << ok.error_line;
  fs::remove_all(dir_.path());
  fs::create_directories(dir_.path());

  const compile::ChildResult failed = Run({"--ep-options", "fail_compile=1"}, std::chrono::seconds(60));
  EXPECT_EQ(failed.outcome, compile::ChildOutcome::kFailed);
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.error_line.rfind("error: ", 0), 0u) << failed.error_line;

  const compile::ChildResult crashed = Run({"--ep-options", "crash_compile=1"}, std::chrono::seconds(60));
  EXPECT_EQ(crashed.outcome, compile::ChildOutcome::kCrashed);
  EXPECT_EQ(crashed.signal, SIGABRT);

  const compile::ChildResult hung = Run({"--ep-options", "compile_delay_ms=30000"}, std::chrono::milliseconds(1500));
  EXPECT_EQ(hung.outcome, compile::ChildOutcome::kTimedOut);
  EXPECT_EQ(hung.signal, SIGKILL);
  EXPECT_LT(hung.seconds, 10.0) << "killed at the limit, not after the 30 s compile";
  EXPECT_EQ(compile::DescribeOutcome(hung, std::chrono::milliseconds(1500)), "timed out after 1.500 s");

  // The crashed and the killed compiles left staging folders of dead processes: they are removed, never trusted.
  compile::RemoveAbandonedCompileFolders(dir_.path());
  EXPECT_EQ(Listing(dir_.path()), std::vector<std::string>{});
}

}  // namespace
}  // namespace modelkit
