#include "partitioner.h"

#include <deque>
#include <unordered_set>

namespace sim_npu {

std::vector<std::vector<size_t>> GroupSupportedNodes(const std::vector<PartitionNode>& nodes) {
  std::vector<size_t> in_degree(nodes.size());
  std::vector<std::vector<size_t>> consumers(nodes.size());
  std::deque<size_t> ready;
  for (size_t i = 0; i < nodes.size(); ++i) {
    in_degree[i] = nodes[i].producers.size();
    for (size_t producer : nodes[i].producers) consumers[producer].push_back(i);
    if (in_degree[i] == 0) ready.push_back(i);
  }

  std::vector<std::vector<size_t>> groups;
  std::vector<size_t> group;
  std::unordered_set<size_t> border;  // consumers of the current group's outputs
  std::deque<size_t> next_wave;
  const auto close_group = [&] {
    if (!group.empty()) groups.push_back(std::move(group));
    group.clear();
    border.clear();
  };

  while (!ready.empty() || !next_wave.empty()) {
    if (ready.empty()) {
      close_group();
      ready.swap(next_wave);
      continue;
    }
    const size_t node = ready.front();
    ready.pop_front();
    const bool supported = nodes[node].supported;
    if (!supported && border.count(node)) {
      next_wave.push_back(node);
      continue;
    }
    if (supported) {
      group.push_back(node);
      border.erase(node);
    }
    for (size_t consumer : consumers[node]) {
      if (supported) border.insert(consumer);
      if (--in_degree[consumer] == 0) ready.push_back(consumer);
    }
  }
  close_group();
  return groups;
}

}  // namespace sim_npu
