#include "modelkit/ort/ort_log.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace modelkit::ort {
namespace {

void Log(OrtLoggingLevel severity, const char* message, const char* location = "graph.cc:12 Resolve") {
  LogFromOrt(nullptr, severity, "onnxruntime", "modelkit", location, message);
}

class OrtLogTest : public ::testing::Test {
 protected:
  void SetUp() override { TakeOrtWarnings(); }
  void TearDown() override { SetOrtLogEcho(nullptr); }
};

TEST_F(OrtLogTest, KeepsEachWarningOnceInOrder) {
  Log(ORT_LOGGING_LEVEL_WARNING, "first");
  Log(ORT_LOGGING_LEVEL_INFO, "not a warning");
  Log(ORT_LOGGING_LEVEL_WARNING, "second");
  Log(ORT_LOGGING_LEVEL_WARNING, "first");
  Log(ORT_LOGGING_LEVEL_ERROR, "errors arrive as exceptions");
  EXPECT_EQ(TakeOrtWarnings(), (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE(TakeOrtWarnings().empty()) << "taking clears them";
}

TEST_F(OrtLogTest, KeepsAtMostTwenty) {
  for (int i = 0; i < 30; ++i) Log(ORT_LOGGING_LEVEL_WARNING, ("warning " + std::to_string(i)).c_str());
  const std::vector<std::string> kept = TakeOrtWarnings();
  ASSERT_EQ(kept.size(), 20u);
  EXPECT_EQ(kept.back(), "warning 19");
}

TEST_F(OrtLogTest, LeavesOutWhatThePlacementStatesBetter) {
  Log(ORT_LOGGING_LEVEL_WARNING, "Some nodes were not assigned to the preferred execution providers",
      "session_state.cc:1397 VerifyEachNodeIsAssignedToAnEp");
  Log(ORT_LOGGING_LEVEL_WARNING,
      "Config with key [session.record_ep_graph_assignment_info] already exists with value [1]. It will be "
      "overwritten");
  EXPECT_TRUE(TakeOrtWarnings().empty());
}

TEST_F(OrtLogTest, EchoesWarningsAndAboveAsPlainLines) {
  std::vector<std::string> lines;
  SetOrtLogEcho([&](const std::string& line) { lines.push_back(line); });
  Log(ORT_LOGGING_LEVEL_VERBOSE, "chatter");
  Log(ORT_LOGGING_LEVEL_WARNING, "Some nodes were not assigned", "VerifyEachNodeIsAssignedToAnEp");
  Log(ORT_LOGGING_LEVEL_ERROR, "broken");
  EXPECT_EQ(lines, (std::vector<std::string>{"ONNX Runtime warning: Some nodes were not assigned",
                                             "ONNX Runtime error: broken"}));
}

}  // namespace
}  // namespace modelkit::ort
