// The simulated NPU's grouping of supported nodes (pure logic; nodes are given in topological order).
#include "partitioner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sim_npu {
namespace {

using ::testing::ElementsAre;

PartitionNode Supported(std::vector<size_t> producers = {}) { return {std::move(producers), true}; }
PartitionNode Unsupported(std::vector<size_t> producers = {}) { return {std::move(producers), false}; }

TEST(GroupSupportedNodes, ChainOfSupportedNodesIsOneGroup) {
  EXPECT_THAT(GroupSupportedNodes({Supported(), Supported({0}), Supported({1})}), ElementsAre(ElementsAre(0, 1, 2)));
}

TEST(GroupSupportedNodes, UnsupportedNodeBetweenSupportedOnesSplitsThem) {
  EXPECT_THAT(GroupSupportedNodes({Supported(), Unsupported({0}), Supported({1})}),
              ElementsAre(ElementsAre(0), ElementsAre(2)));
}

// 0 -> 1 (unsupported) -> 3 and 0 -> 2 -> 3: node 3 waits for the unsupported node, which needs node 0's group
// finished, so merging 3 into {0, 2} would form a cycle through node 1.
TEST(GroupSupportedNodes, DiamondThroughAnUnsupportedNodeNeverFormsACycle) {
  EXPECT_THAT(GroupSupportedNodes({Supported(), Unsupported({0}), Supported({0}), Supported({1, 2})}),
              ElementsAre(ElementsAre(0, 2), ElementsAre(3)));
}

// An unsupported node that does not consume the group's outputs is flowed past, not a border.
TEST(GroupSupportedNodes, UnsupportedRootFeedingTheGroupDoesNotSplitIt) {
  EXPECT_THAT(GroupSupportedNodes({Supported(), Unsupported(), Supported({0, 1})}), ElementsAre(ElementsAre(0, 2)));
}

TEST(GroupSupportedNodes, IndependentBranchesShareAGroup) {
  EXPECT_THAT(GroupSupportedNodes({Supported(), Supported(), Supported({0}), Supported({1})}),
              ElementsAre(ElementsAre(0, 1, 2, 3)));
}

TEST(GroupSupportedNodes, NothingSupportedGivesNoGroups) {
  EXPECT_TRUE(GroupSupportedNodes({Unsupported(), Unsupported({0})}).empty());
  EXPECT_TRUE(GroupSupportedNodes({}).empty());
}

// A node consuming the same producer twice counts both edges.
TEST(GroupSupportedNodes, RepeatedInputEdgesAreCounted) {
  EXPECT_THAT(GroupSupportedNodes({Supported(), Supported({0, 0}), Unsupported({1}), Supported({2, 0})}),
              ElementsAre(ElementsAre(0, 1), ElementsAre(3)));
}

}  // namespace
}  // namespace sim_npu
