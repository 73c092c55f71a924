// The simulated NPU's compiled-model compatibility info and its validation.
#include "compatibility.h"

#include <gtest/gtest.h>

namespace sim_npu {
namespace {

TEST(Compatibility, InfoNamesTheEpAndItsVersion) {
  EXPECT_EQ(CompatibilityInfo("SimNpuExecutionProvider", "1.0.0"), "SimNpuExecutionProvider;version=1.0.0");
}

TEST(Compatibility, SameEpAndVersionIsOptimal) {
  EXPECT_EQ(CheckCompatibility("SimNpuExecutionProvider;version=1.0.0", "SimNpuExecutionProvider", "1.0.0"),
            Compatibility::kOptimal);
}

TEST(Compatibility, AnotherVersionPrefersRecompilation) {
  EXPECT_EQ(CheckCompatibility("SimNpuExecutionProvider;version=0.9.0", "SimNpuExecutionProvider", "1.0.0"),
            Compatibility::kPreferRecompilation);
}

TEST(Compatibility, AnotherEpOrGarbageIsUnsupported) {
  EXPECT_EQ(CheckCompatibility("SimNpu2ExecutionProvider;version=1.0.0", "SimNpuExecutionProvider", "1.0.0"),
            Compatibility::kUnsupported);
  EXPECT_EQ(CheckCompatibility("SimNpuExecutionProvider", "SimNpuExecutionProvider", "1.0.0"),
            Compatibility::kUnsupported);
  EXPECT_EQ(CheckCompatibility("", "SimNpuExecutionProvider", "1.0.0"), Compatibility::kUnsupported);
}

}  // namespace
}  // namespace sim_npu
