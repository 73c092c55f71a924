#include "modelkit/base/strings.h"

#include <gtest/gtest.h>

namespace modelkit {
namespace {

TEST(Strings, ToLowerFoldsOnlyAscii) {
  EXPECT_EQ(ToLower("QNNExecutionProvider"), "qnnexecutionprovider");
  EXPECT_EQ(ToLower("Ä-X"), "Ä-x");
}

TEST(Strings, EqualsIgnoreCase) {
  EXPECT_TRUE(EqualsIgnoreCase("OpenVINO", "openvino"));
  EXPECT_FALSE(EqualsIgnoreCase("openvino", "openvin"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
}

TEST(Strings, SplitKeepsEmptyPieces) {
  EXPECT_EQ(Split("a::b", ':'), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(Split("", ':'), (std::vector<std::string>{""}));
  EXPECT_EQ(Split("a:", ':'), (std::vector<std::string>{"a", ""}));
}

TEST(Strings, ReplaceAll) {
  EXPECT_EQ(ReplaceAll("b/_compiled/x and b/_compiled", "b/_compiled", "b"), "b/x and b");
  EXPECT_EQ(ReplaceAll("aaa", "aa", "b"), "ba") << "left to right, not overlapping";
  EXPECT_EQ(ReplaceAll("abc", "", "x"), "abc");
  EXPECT_EQ(ReplaceAll("", "a", "x"), "");
}

TEST(Strings, JoinAndTrim) {
  EXPECT_EQ(Join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(Join({}, ", "), "");
  EXPECT_EQ(Trim("  x y \t\n"), "x y");
  EXPECT_EQ(Trim("   "), "");
}

TEST(Strings, ClosestMatchSuggestsOnlyNearMisses) {
  const std::vector<std::string> eps = {"cpu", "cuda", "dml", "qnn", "simnpu", "webgpu"};
  EXPECT_EQ(ClosestMatch("cpuu", eps), "cpu");
  EXPECT_EQ(ClosestMatch("CPU", eps), "cpu");
  EXPECT_EQ(ClosestMatch("simnpuu", eps), "simnpu");
  EXPECT_EQ(ClosestMatch("webgp", eps), "webgpu");
  EXPECT_EQ(ClosestMatch("tensorrt", eps), "") << "nothing is close";
  EXPECT_EQ(ClosestMatch("xyz", eps), "") << "3 letters allow one edit";
  EXPECT_EQ(ClosestMatch("--iteration", {"--iterations", "--warmup", "--duration"}), "--iterations");
  EXPECT_EQ(ClosestMatch("", eps), "");
  EXPECT_EQ(ClosestMatch("cpu", {}), "");
}

}  // namespace
}  // namespace modelkit
