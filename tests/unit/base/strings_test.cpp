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

}  // namespace
}  // namespace modelkit
