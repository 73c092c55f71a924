// The compile API with the simulated NPU: EPContext models (embedded and external context), reloaded without the
// source model, refused by the CPU EP and by another EP name, and compiler faults (failure, crash, slowness).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>

#include "modelkit/ort/runtime.h"
#include "support/model_case.h"
#include "support/sim_npu.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;
using test::kSimNpu;
using test::kSimNpu2;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compiles `source` for `ep_name` into `output`. Returns ORT's status.
Ort::Status Compile(const fs::path& source, const fs::path& output, bool embed,
                    const std::map<std::string, std::string>& ep_options = {}, const std::string& ep_name = kSimNpu) {
  test::RegisterSimNpu();
  Ort::SessionOptions options;
  test::AppendSimNpu(options, ep_options, ep_name);
  Ort::ModelCompilationOptions compile(ort::SharedEnv(), options);
  compile.SetInputModelPath(source.c_str());
  compile.SetOutputModelPath(output.c_str());
  compile.SetEpContextEmbedMode(embed);
  compile.SetFlags(OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED);
  return Ort::CompileModel(ort::SharedEnv(), compile);
}

// The error message of creating a session for `model` with `options`, or "" when it succeeds.
std::string SessionError(const fs::path& model, const Ort::SessionOptions& options) {
  try {
    Ort::Session session(ort::SharedEnv(), model.c_str(), options);
    return "";
  } catch (const Ort::Exception& error) {
    return error.what();
  }
}

struct CompileCase {
  std::string model;
  bool embed;
};

void PrintTo(const CompileCase& compile_case, std::ostream* out) {
  *out << compile_case.model << (compile_case.embed ? ", embedded context" : ", context file");
}

class SimNpuCompile : public ::testing::TestWithParam<CompileCase> {};

// The compiled model holds EPContext nodes whose context is the NPU's compiled partition: it runs after the source
// model is gone, restoring the partitions instead of compiling them again.
TEST_P(SimNpuCompile, CompiledModelRunsWithoutItsSource) {
  const test::ModelCase model_case = test::LoadModelCase(GetParam().model);
  test::TempDir dir;
  const fs::path source = dir.path() / "source" / model_case.model.filename();
  const fs::path compiled = dir.path() / "compiled" / "model_ctx.onnx";
  fs::create_directories(source.parent_path());
  fs::create_directories(compiled.parent_path());
  fs::copy_file(model_case.model, source);
  // Weights stored beside the model (external data) go with it, and are gone with it.
  if (fs::path data = model_case.model.string() + ".data"; fs::exists(data)) {
    fs::copy_file(data, source.parent_path() / data.filename());
  }

  const Ort::Status status = Compile(source, compiled, GetParam().embed);
  ASSERT_TRUE(status.IsOK()) << status.GetErrorMessage();
  fs::remove_all(source.parent_path());

  const std::string bytes = ReadFile(compiled);
  EXPECT_NE(bytes.find("EPContext"), std::string::npos);
  EXPECT_NE(bytes.find(kSimNpu), std::string::npos) << "the source attribute names the EP";
  size_t bin_files = 0;
  for (const auto& entry : fs::directory_iterator(compiled.parent_path())) {
    bin_files += entry.path().extension() == ".bin";
  }
  if (GetParam().embed) {
    EXPECT_NE(bytes.find("SIMNPU-CONTEXT"), std::string::npos);
    EXPECT_EQ(bin_files, 0u);
  } else {
    EXPECT_EQ(bytes.find("SIMNPU-CONTEXT"), std::string::npos);
    EXPECT_GE(bin_files, 1u);
  }

  const test::SimNpuCounters before = test::ReadSimNpuCounters();
  Ort::SessionOptions options;
  options.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
  test::AppendSimNpu(options);
  Ort::Session session(ort::SharedEnv(), compiled.c_str(), options);
  const test::SimNpuCounters loaded = test::ReadSimNpuCounters();
  EXPECT_GE(loaded.loaded_contexts, before.loaded_contexts + 1);
  EXPECT_EQ(loaded.compiled_partitions, before.compiled_partitions) << "a context model must not be recompiled";
  test::ExpectCaseOutputs(session, model_case);
  EXPECT_GT(test::ReadSimNpuCounters().runs, loaded.runs);
}

INSTANTIATE_TEST_SUITE_P(Models, SimNpuCompile,
                         ::testing::Values(CompileCase{"matmul_add", true}, CompileCase{"matmul_add", false},
                                           CompileCase{"matmul_nbits", true}, CompileCase{"gqa_with_past", false},
                                           CompileCase{"decoder", true}, CompileCase{"decoder", false},
                                           CompileCase{"decoder_external", true},
                                           CompileCase{"decoder_external", false}),
                         [](const auto& param_info) {
                           return param_info.param.model + (param_info.param.embed ? "_embedded" : "_external");
                         });

class SimNpuCompiledModel : public ::testing::Test {
 protected:
  void SetUp() override {
    model_case_ = test::LoadModelCase("decoder");
    compiled_ = dir_.path() / "decoder_ctx.onnx";
    const Ort::Status status = Compile(model_case_.model, compiled_, /*embed=*/false, {{"op_deny", "Softmax"}});
    ASSERT_TRUE(status.IsOK()) << status.GetErrorMessage();
  }

  test::TempDir dir_;
  test::ModelCase model_case_;
  fs::path compiled_;
};

// Denied nodes stay as ordinary nodes between the EPContext nodes, run by the CPU EP (when the loading session denies
// them too; otherwise the NPU would claim them as new partitions).
TEST_F(SimNpuCompiledModel, PartialCompilationKeepsDeniedNodesForTheCpu) {
  EXPECT_NE(ReadFile(compiled_).find("Softmax"), std::string::npos);
  Ort::SessionOptions options;
  options.AddConfigEntry("session.record_ep_graph_assignment_info", "1");
  test::AppendSimNpu(options, {{"op_deny", "Softmax"}});
  Ort::Session session(ort::SharedEnv(), compiled_.c_str(), options);
  const auto nodes = test::NodesPerEp(session);
  EXPECT_EQ(nodes.count("CPUExecutionProvider") ? nodes.at("CPUExecutionProvider") : 0u, 2u) << "two Softmax nodes";
  EXPECT_GE(nodes.count(kSimNpu) ? nodes.at(kSimNpu) : 0u, 3u) << "EPContext nodes around them";
  test::ExpectCaseOutputs(session, model_case_);
}

TEST_F(SimNpuCompiledModel, CpuOnlyCannotLoadIt) {
  const std::string error = SessionError(compiled_, Ort::SessionOptions{});
  ASSERT_NE(error, "") << "the CPU EP ran an NPU context model";
  EXPECT_NE(error.find("EPContext node generated by 'SimNpuExecutionProvider' is not compatible"), std::string::npos)
      << error;
}

TEST_F(SimNpuCompiledModel, AnotherEpNameRefusesIt) {
  Ort::SessionOptions options;
  test::AppendSimNpu(options, {}, kSimNpu2);
  const std::string error = SessionError(compiled_, options);
  ASSERT_NE(error, "") << kSimNpu2 << " ran a model compiled by " << kSimNpu;
  EXPECT_NE(error.find("EPContext node generated by 'SimNpuExecutionProvider' is not compatible"), std::string::npos)
      << error;
}

TEST_F(SimNpuCompiledModel, MissingContextFileIsAClearError) {
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    if (entry.path().extension() == ".bin") fs::remove(entry.path());
  }
  Ort::SessionOptions options;
  test::AppendSimNpu(options);
  const std::string error = SessionError(compiled_, options);
  EXPECT_NE(error.find("cannot open the EPContext file"), std::string::npos) << error;
}

// ORT records the EP's compatibility info (name and version) in the compiled model, and asks the EP's factory to judge
// it: what an application or a compile cache uses to decide whether a compiled model still fits.
TEST_F(SimNpuCompiledModel, RecordsCompatibilityInfoTheEpValidates) {
  Ort::AllocatorWithDefaultOptions allocator;
  const Ort::AllocatedStringPtr info =
      Ort::GetCompatibilityInfoFromModelAllocated(compiled_.c_str(), kSimNpu, allocator);
  ASSERT_NE(info, nullptr);
  EXPECT_STREQ(info.get(), "SimNpuExecutionProvider;version=1.0.0");
  EXPECT_EQ(Ort::GetModelCompatibilityForEpDevices(test::SimNpuDevices(kSimNpu), info.get()),
            OrtCompiledModelCompatibility_EP_SUPPORTED_OPTIMAL);
  EXPECT_EQ(Ort::GetModelCompatibilityForEpDevices(test::SimNpuDevices(kSimNpu2), info.get()),
            OrtCompiledModelCompatibility_EP_UNSUPPORTED);
  EXPECT_EQ(Ort::GetModelCompatibilityForEpDevices(test::SimNpuDevices(kSimNpu), "SimNpuExecutionProvider;version=0.9"),
            OrtCompiledModelCompatibility_EP_SUPPORTED_PREFER_RECOMPILATION);
}

// Compiled into memory with the context embedded, the model runs from those bytes.
TEST(SimNpuCompileToBuffer, EmbeddedContextModelRunsFromBytes) {
  const test::ModelCase model_case = test::LoadModelCase("decoder");
  Ort::SessionOptions options;
  test::AppendSimNpu(options);
  Ort::ModelCompilationOptions compile(ort::SharedEnv(), options);
  compile.SetInputModelPath(model_case.model.c_str());
  compile.SetEpContextEmbedMode(true);
  Ort::AllocatorWithDefaultOptions allocator;
  void* buffer = nullptr;
  size_t size = 0;
  compile.SetOutputModelBuffer(allocator, &buffer, &size);
  const Ort::Status status = Ort::CompileModel(ort::SharedEnv(), compile);
  ASSERT_TRUE(status.IsOK()) << status.GetErrorMessage();
  const std::string bytes(static_cast<const char*>(buffer), size);
  allocator.Free(buffer);
  EXPECT_NE(bytes.find("SIMNPU-CONTEXT"), std::string::npos);

  Ort::SessionOptions load;
  load.AddConfigEntry("session.disable_cpu_ep_fallback", "1");
  test::AppendSimNpu(load);
  Ort::Session session(ort::SharedEnv(), bytes.data(), bytes.size(), load);
  test::ExpectCaseOutputs(session, model_case);
}

TEST(SimNpuCompileFaults, FailCompileFailsTheCompileApiButNotJustInTimeSessions) {
  const test::ModelCase model_case = test::LoadModelCase("matmul_add");
  test::TempDir dir;
  const Ort::Status status = Compile(model_case.model, dir.path() / "out.onnx", true, {{"fail_compile", "1"}});
  ASSERT_FALSE(status.IsOK());
  EXPECT_NE(status.GetErrorMessage().find("fail_compile=1"), std::string::npos) << status.GetErrorMessage();
  EXPECT_FALSE(fs::exists(dir.path() / "out.onnx"));

  // Just-in-time compilation in a session is not the offline compiler: it still works.
  Ort::SessionOptions options;
  test::AppendSimNpu(options, {{"fail_compile", "1"}, {"crash_compile", "1"}});
  EXPECT_EQ(SessionError(model_case.model, options), "");
}

// A crashing NPU compiler takes the process with it: what a compile worker process must survive.
TEST(SimNpuCompileFaultsDeathTest, CrashCompileKillsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const test::ModelCase model_case = test::LoadModelCase("matmul_add");
  // No TempDir: the death-test child re-runs this body and dies before it could remove one.
  const fs::path output = fs::temp_directory_path() / "modelkit_sim_npu_crash_compile_test.onnx";
  fs::remove(output);
  EXPECT_EXIT(
      {
        (void)Compile(model_case.model, output, true, {{"crash_compile", "1"}});
      },
      ::testing::KilledBySignal(SIGABRT), "crash_compile=1");
  EXPECT_FALSE(fs::exists(output));
}

TEST(SimNpuCompileFaults, CompileDelayMakesCompilingSlowButNotLoading) {
  const test::ModelCase model_case = test::LoadModelCase("matmul_add");
  test::TempDir dir;
  const fs::path compiled = dir.path() / "out.onnx";
  const auto start = std::chrono::steady_clock::now();
  const Ort::Status status = Compile(model_case.model, compiled, true, {{"compile_delay_ms", "400"}});
  const auto compile_time = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(status.IsOK()) << status.GetErrorMessage();
  EXPECT_GE(compile_time, std::chrono::milliseconds(400));

  Ort::SessionOptions options;
  test::AppendSimNpu(options, {{"compile_delay_ms", "400"}});
  const auto load_start = std::chrono::steady_clock::now();
  Ort::Session session(ort::SharedEnv(), compiled.c_str(), options);
  EXPECT_LT(std::chrono::steady_clock::now() - load_start, std::chrono::milliseconds(400));
  test::ExpectCaseOutputs(session, model_case);
}

}  // namespace
}  // namespace modelkit
