// Groups supported nodes into partitions that can each become one fused node without creating a cycle.
//
// ORT checks every group an EP proposes by re-running its own partitioner (a wave-by-wave variant of Kahn's
// topological sort) with only that group supported, and silently gives every node to the CPU EP when a group would
// split or form a cycle. This is the same wave algorithm, so each group it returns passes that check: a wave takes
// every supported node it can reach, flowing past unsupported nodes that do not consume the group's outputs, and
// stops at those that do; the next wave starts there.
#pragma once

#include <cstddef>
#include <vector>

namespace sim_npu {

struct PartitionNode {
  std::vector<size_t> producers;  // indices of the nodes producing its inputs, one entry per input edge
  bool supported = false;
};

// Returns the groups of supported node indices, each in processing (topological) order.
std::vector<std::vector<size_t>> GroupSupportedNodes(const std::vector<PartitionNode>& nodes);

}  // namespace sim_npu
