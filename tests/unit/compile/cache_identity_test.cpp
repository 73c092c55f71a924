// The compile cache's reuse rule on real files.
#include "modelkit/compile/cache_identity.h"

#include <chrono>
#include <fstream>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace modelkit::compile {
namespace {

namespace fs = std::filesystem;

class CacheIdentity : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("ctx.onnx", "graph bytes");
    dir_.Write("ctx.onnx.data", std::string(3 << 20, 'w'));  // spans several hash buffers
    recorded_.ep = "SimNpuExecutionProvider";
    recorded_.provider_options = {{"device_type", "NPU"}};
    recorded_.ort_version = "1.30.0";
    recorded_.ep_version = "1.0.0";
    for (const std::string& name : names_) recorded_.sources.push_back(IdentifySource(dir_.path(), name));
  }
  std::optional<std::string> Stale(const std::string& ep = "SimNpuExecutionProvider",
                                   std::map<std::string, std::string> options = {{"device_type", "NPU"}},
                                   const std::string& ort = "1.30.0", const std::string& ep_version = "1.0.0") {
    return StaleReason(recorded_, dir_.path(), names_, ep, options, ort, ep_version);
  }
  void Touch(const std::string& name) {
    fs::last_write_time(dir_.path() / name, fs::last_write_time(dir_.path() / name) + std::chrono::seconds(5));
  }

  test::TempDir dir_;
  std::vector<std::string> names_ = {"ctx.onnx", "ctx.onnx.data"};
  CompileIdentity recorded_;
};

TEST_F(CacheIdentity, UnchangedInputsAreFresh) { EXPECT_EQ(Stale(), std::nullopt); }

TEST_F(CacheIdentity, AnotherEpNeverReusesTheArtifact) {
  EXPECT_EQ(Stale("SimNpu2ExecutionProvider"), "compiled for SimNpuExecutionProvider, not SimNpu2ExecutionProvider");
}

TEST_F(CacheIdentity, OptionsOrtAndEpVersionsAreIdentity) {
  EXPECT_EQ(Stale("SimNpuExecutionProvider", {{"device_type", "GPU"}}), "provider options changed");
  EXPECT_EQ(Stale("SimNpuExecutionProvider", {}), "provider options changed");
  EXPECT_EQ(Stale("SimNpuExecutionProvider", {{"device_type", "NPU"}}, "1.31.0"), "ONNX Runtime 1.30.0 -> 1.31.0");
  EXPECT_EQ(Stale("SimNpuExecutionProvider", {{"device_type", "NPU"}}, "1.30.0", "1.1.0"), "EP version 1.0.0 -> 1.1.0");
}

TEST_F(CacheIdentity, ATouchedButUnchangedSourceIsStillFresh) {
  Touch("ctx.onnx.data");
  EXPECT_EQ(Stale(), std::nullopt) << "mtime differs, content hash matches";
}

TEST_F(CacheIdentity, SameSizeNewContentIsStale) {
  dir_.Write("ctx.onnx", "graph BYTES");  // same length
  Touch("ctx.onnx");
  EXPECT_EQ(Stale(), "ctx.onnx changed content");
}

TEST_F(CacheIdentity, SizeChangeOrMissingFileIsStale) {
  dir_.Write("ctx.onnx.data", "short");
  EXPECT_EQ(Stale(), "ctx.onnx.data changed size");
  fs::remove(dir_.path() / "ctx.onnx.data");
  EXPECT_EQ(Stale(), "ctx.onnx.data is missing");
}

TEST_F(CacheIdentity, RecordRoundTripsThroughJson) {
  const std::optional<CompileIdentity> back = FromJson(ToJson(recorded_));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->ep, recorded_.ep);
  EXPECT_EQ(back->provider_options, recorded_.provider_options);
  ASSERT_EQ(back->sources.size(), 2u);
  EXPECT_EQ(back->sources[1].content_hash, recorded_.sources[1].content_hash);
  EXPECT_EQ(back->sources[1].size, 3u << 20);
  EXPECT_EQ(recorded_.sources[0].content_hash.size(), 32u);
  EXPECT_NE(recorded_.sources[0].content_hash, recorded_.sources[1].content_hash);
  EXPECT_FALSE(FromJson(nlohmann::json::parse(R"({"ep": "x"})")).has_value()) << "a foreign record is not trusted";
  nlohmann::json old = ToJson(recorded_);
  old["record_version"] = 0;
  EXPECT_FALSE(FromJson(old).has_value());
}

TEST(HashFile, DiffersWithContentAndIsStable) {
  test::TempDir dir;
  const auto a = dir.Write("a", "hello");
  const auto b = dir.Write("b", "hello");
  const auto c = dir.Write("c", "hellp");
  EXPECT_EQ(HashFile(a), HashFile(b));
  EXPECT_NE(HashFile(a), HashFile(c));
  // XXH3-128 of "" is a published constant: 99aa06d3014798d86001c324468d497f.
  EXPECT_EQ(HashFile(dir.Write("empty", "")), "99aa06d3014798d86001c324468d497f");
}

}  // namespace
}  // namespace modelkit::compile
