// RunIsolated against real child processes: each way a child can end is told apart, and the caller survives all.
#include "modelkit/base/isolated_call.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace modelkit {
namespace {

using namespace std::chrono_literals;

TEST(IsolatedCallTest, ReturnsTheChildsValue) {
  const IsolatedResult result =
      RunIsolated([] { return std::string("made in the child ") + std::to_string(getpid()); });
  ASSERT_EQ(result.outcome, IsolatedOutcome::kReturned);
  EXPECT_EQ(result.value.rfind("made in the child ", 0), 0u);
  EXPECT_NE(result.value, "made in the child " + std::to_string(getpid()));  // another process made it
}

TEST(IsolatedCallTest, ReturnsLargeValuesWhole) {
  const IsolatedResult result = RunIsolated([] { return std::string(3 << 20, 'x'); });
  ASSERT_EQ(result.outcome, IsolatedOutcome::kReturned);
  EXPECT_EQ(result.value, std::string(3 << 20, 'x'));
}

TEST(IsolatedCallTest, AnExceptionComesBackAsItsMessage) {
  const IsolatedResult result = RunIsolated([]() -> std::string { throw std::runtime_error("no such variable"); });
  EXPECT_EQ(result.outcome, IsolatedOutcome::kThrew);
  EXPECT_EQ(result.value, "no such variable");
}

TEST(IsolatedCallTest, ACrashIsReportedWithItsSignal) {
  const IsolationLimits limits;
  const IsolatedResult result = RunIsolated([]() -> std::string { std::abort(); });
  EXPECT_EQ(result.outcome, IsolatedOutcome::kCrashed);
  EXPECT_EQ(result.signal, SIGABRT);
  EXPECT_NE(DescribeIsolatedFailure(result, limits).find("signal 6"), std::string::npos);
}

TEST(IsolatedCallTest, WorkPastTheTimeLimitIsKilled) {
  const IsolationLimits limits{.time = 300ms};
  const auto start = std::chrono::steady_clock::now();
  const IsolatedResult result = RunIsolated(
      [] {
        for (;;) pause();
        return std::string();
      },
      limits);
  EXPECT_EQ(result.outcome, IsolatedOutcome::kTimedOut);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(DescribeIsolatedFailure(result, limits), "took longer than 0.3 s");
}

TEST(IsolatedCallTest, OutputPastTheLimitIsRefused) {
  const IsolationLimits limits{.output_bytes = 1 << 20};
  const IsolatedResult result = RunIsolated([] { return std::string(2 << 20, 'x'); }, limits);
  EXPECT_EQ(result.outcome, IsolatedOutcome::kOutputTooLarge);
  EXPECT_EQ(DescribeIsolatedFailure(result, limits), "produced more than 1 MiB");
}

#if !defined(__SANITIZE_ADDRESS__)  // no memory limit under ASan (see isolated_call.cpp)
TEST(IsolatedCallTest, MemoryPastTheLimitIsAnError) {
  const IsolationLimits limits{.extra_memory = size_t{64} << 20};
  const IsolatedResult result = RunIsolated(
      [] {
        std::vector<std::vector<char>> blocks;
        for (int i = 0; i < 64; ++i) blocks.emplace_back(size_t{16} << 20, 'x');  // 1 GiB, touched
        return std::to_string(blocks.size());
      },
      limits);
  EXPECT_EQ(result.outcome, IsolatedOutcome::kThrew);
  EXPECT_EQ(result.value, "ran out of memory (more than 64 MiB)");
}
#endif

}  // namespace
}  // namespace modelkit
