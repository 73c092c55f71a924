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

TEST(Strings, JoinAndTrim) {
  EXPECT_EQ(Join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(Join({}, ", "), "");
  EXPECT_EQ(Trim("  x y \t\n"), "x y");
  EXPECT_EQ(Trim("   "), "");
}

}  // namespace
}  // namespace modelkit
