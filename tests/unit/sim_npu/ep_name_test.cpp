// How a registration name becomes the simulated NPU's EP name.
#include "ep_name.h"

#include <gtest/gtest.h>

namespace sim_npu {
namespace {

TEST(EpNameFromRegistration, StripsVirtualAndAppendsExecutionProvider) {
  EXPECT_EQ(EpNameFromRegistration("SimNpu.virtual"), "SimNpuExecutionProvider");
  EXPECT_EQ(EpNameFromRegistration("SimNpu2.virtual"), "SimNpu2ExecutionProvider");
  EXPECT_EQ(EpNameFromRegistration("SimNpu"), "SimNpuExecutionProvider");
}

TEST(EpNameFromRegistration, KeepsAnExistingSuffix) {
  EXPECT_EQ(EpNameFromRegistration("FooExecutionProvider.virtual"), "FooExecutionProvider");
  EXPECT_EQ(EpNameFromRegistration("FooExecutionProvider"), "FooExecutionProvider");
}

TEST(EpNameFromRegistration, ABareVirtualIsAName) {
  EXPECT_EQ(EpNameFromRegistration(".virtual"), ".virtualExecutionProvider");
}

}  // namespace
}  // namespace sim_npu
