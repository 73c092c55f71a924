// The safetensors reader on hand-written files: dtypes, shards, and every way a checkpoint file can be broken.
#include "builder/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "modelkit/base/error.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using ::testing::HasSubstr;

// Runs `body`, expecting a modelkit::Error with exit code 3 whose message holds every fragment.
template <typename Body>
void ExpectInvalid(Body body, const std::vector<std::string>& fragments) {
  try {
    body();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    for (const auto& fragment : fragments) EXPECT_THAT(e.what(), HasSubstr(fragment));
  }
}

TEST(SafetensorsTest, ReadsF32F16AndBf16AsF32) {
  TempDir tmp;
  const std::vector<float> values = {0.0f, 1.0f, -2.5f, 0.333333f, 1000.0f, -0.0078125f, 3e-6f};
  WriteSafetensors(tmp.path() / "m.safetensors", {{"a", "F32", {7}, EncodeFloats(values, "F32")},
                                                  {"b", "F16", {7}, EncodeFloats(values, "F16")},
                                                  {"c", "BF16", {7}, EncodeFloats(values, "BF16")}});
  builder::SafetensorsFile file(tmp.path() / "m.safetensors");
  EXPECT_EQ(file.tensors().size(), 3u);
  EXPECT_EQ(file.ReadF32("a", {7}), values);
  const std::vector<float> f16 = file.ReadF32("b", {7});
  const std::vector<float> bf16 = file.ReadF32("c", {7});
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(f16[i], RoundTrip(values[i], "F16"));
    EXPECT_NEAR(f16[i], values[i], std::abs(values[i]) * 1e-3 + 1e-7);  // 3e-6 is subnormal in f16
    EXPECT_EQ(bf16[i], RoundTrip(values[i], "BF16"));
    EXPECT_NEAR(bf16[i], values[i], std::abs(values[i]) * 1e-2);
  }
}

TEST(SafetensorsTest, WrongShapeNamesFileTensorAndShapes) {
  TempDir tmp;
  WriteSafetensors(tmp.path() / "m.safetensors", {{"w", "F32", {2, 3}, EncodeFloats(std::vector<float>(6), "F32")}});
  builder::SafetensorsFile file(tmp.path() / "m.safetensors");
  ExpectInvalid([&] { file.ReadF32("w", {3, 2}); }, {"m.safetensors", "'w'", "[2, 3]", "expected [3, 2]"});
  ExpectInvalid([&] { file.ReadF32("missing", {1}); }, {"no tensor 'missing'"});
}

TEST(SafetensorsTest, UnsupportedDtypeIsNamed) {
  TempDir tmp;
  WriteSafetensors(tmp.path() / "m.safetensors", {{"q", "I8", {4}, std::string(4, '\1')}});
  builder::SafetensorsFile file(tmp.path() / "m.safetensors");
  ExpectInvalid([&] { file.ReadF32("q", {4}); }, {"'q'", "unsupported dtype I8", "F32, F16, BF16"});
}

TEST(SafetensorsTest, TruncatedFileNamesTheTensorPastTheEnd) {
  TempDir tmp;
  const auto path = tmp.path() / "m.safetensors";
  WriteSafetensors(path, {{"first", "F32", {4}, EncodeFloats(std::vector<float>(4), "F32")},
                          {"second", "F32", {4}, EncodeFloats(std::vector<float>(4), "F32")}});
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 5);
  ExpectInvalid([&] { builder::SafetensorsFile file(path); }, {"m.safetensors", "truncated", "'second'"});
  std::filesystem::resize_file(path, 6);
  ExpectInvalid([&] { builder::SafetensorsFile file(path); }, {"m.safetensors", "truncated"});
  std::filesystem::resize_file(path, 40);
  ExpectInvalid([&] { builder::SafetensorsFile file(path); }, {"m.safetensors", "header"});
}

TEST(SafetensorsTest, ByteCountMustMatchShape) {
  TempDir tmp;
  WriteSafetensors(tmp.path() / "m.safetensors", {{"w", "F32", {3}, std::string(8, '\0')}});
  ExpectInvalid([&] { builder::SafetensorsFile file(tmp.path() / "m.safetensors"); }, {"'w'", "8 bytes", "need 12"});
}

TEST(SafetensorsTest, ShardedCheckpointFollowsTheIndex) {
  TempDir tmp;
  WriteSafetensors(tmp.path() / "a.safetensors", {{"x", "F32", {1}, EncodeFloats({1.5f}, "F32")}});
  WriteSafetensors(tmp.path() / "b.safetensors", {{"y", "BF16", {1}, EncodeFloats({2.0f}, "BF16")}});
  WriteSafetensors(tmp.path() / "stray.safetensors", {{"z", "F32", {1}, EncodeFloats({3.0f}, "F32")}});
  tmp.Write("model.safetensors.index.json", R"({"weight_map": {"x": "a.safetensors", "y": "b.safetensors"}})");
  builder::SafetensorsCheckpoint checkpoint(tmp.path());
  EXPECT_TRUE(checkpoint.Contains("x"));
  EXPECT_TRUE(checkpoint.Contains("y"));
  EXPECT_FALSE(checkpoint.Contains("z"));  // not in the index
  EXPECT_EQ(checkpoint.Load("y", {1}), std::vector<float>{2.0f});
  ExpectInvalid([&] { checkpoint.Load("z", {1}); }, {"no tensor 'z'"});
  tmp.Write("model.safetensors.index.json", R"({"weight_map": {"x": "gone.safetensors"}})");
  ExpectInvalid([&] { builder::SafetensorsCheckpoint broken(tmp.path()); }, {"gone.safetensors", "missing"});
}

TEST(SafetensorsTest, DirectoryWithoutSafetensorsIsInvalid) {
  TempDir tmp;
  ExpectInvalid([&] { builder::SafetensorsCheckpoint checkpoint(tmp.path()); }, {"no *.safetensors"});
}

}  // namespace
}  // namespace modelkit::test
