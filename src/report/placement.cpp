#include "modelkit/report/placement.h"

#include <algorithm>

namespace modelkit::report {

namespace {

constexpr size_t kOpTypesShown = 4;

// Operator types of an `op_types` object, most nodes first (ties by name), joined with ", "; at most `limit`, then
// ", ..." when there are more.
std::string TopOpTypes(const nlohmann::ordered_json& op_types, size_t limit) {
  std::vector<std::pair<std::string, int64_t>> sorted;
  for (const auto& [op, count] : op_types.items()) sorted.emplace_back(op, count.get<int64_t>());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (size_t i = 0; i < sorted.size() && i < limit; ++i) text += (i ? ", " : "") + sorted[i].first;
  if (sorted.size() > limit) text += ", ...";
  return text;
}

}  // namespace

std::string ShortEpName(const std::string& ep) {
  const std::string suffix = "ExecutionProvider";
  if (ep.size() > suffix.size() && ep.compare(ep.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return ep.substr(0, ep.size() - suffix.size());
  }
  return ep;
}

SessionPlacement SummarisePlacement(const std::string& session, const std::string& requested_ep,
                                    const std::vector<AssignedSubgraph>& subgraphs) {
  SessionPlacement placement;
  placement.session = session;
  placement.requested_ep = requested_ep;
  std::map<std::string, EpShare> by_ep;
  for (const AssignedSubgraph& subgraph : subgraphs) {
    EpShare& share = by_ep[subgraph.ep];
    share.ep = subgraph.ep;
    ++share.partitions;
    for (const std::string& op : subgraph.op_types) {
      ++share.nodes;
      ++share.op_types[op];
    }
    placement.total_nodes += static_cast<int64_t>(subgraph.op_types.size());
  }
  for (auto& [ep, share] : by_ep) placement.eps.push_back(std::move(share));
  std::stable_sort(placement.eps.begin(), placement.eps.end(),
                   [](const EpShare& a, const EpShare& b) { return a.nodes > b.nodes; });
  return placement;
}

int64_t NodesOn(const SessionPlacement& placement, const std::string& ep) {
  for (const EpShare& share : placement.eps) {
    if (share.ep == ep) return share.nodes;
  }
  return 0;
}

std::optional<std::string> PlacementShortfall(const SessionPlacement& placement) {
  const std::string& requested_ep = placement.requested_ep;
  if (requested_ep == kCpuEpName) return std::nullopt;
  const int64_t got = NodesOn(placement, requested_ep);
  if (got == placement.total_nodes) return std::nullopt;
  std::string text = requested_ep + " ran " + std::to_string(got) + " of " + std::to_string(placement.total_nodes) +
                     " nodes of " + placement.session;
  std::string separator = "; ";
  for (const EpShare& share : placement.eps) {
    if (share.ep == requested_ep) continue;
    nlohmann::ordered_json op_types(share.op_types);
    text += separator + std::to_string(share.nodes) + " fell back to " + share.ep + " (" +
            TopOpTypes(op_types, kOpTypesShown) + ")";
    separator = ", ";
  }
  return text;
}

nlohmann::ordered_json PlacementJson(const SessionPlacement& placement) {
  nlohmann::ordered_json eps = nlohmann::ordered_json::array();
  for (const EpShare& share : placement.eps) {
    eps.push_back({{"ep", share.ep},
                   {"nodes", share.nodes},
                   {"partitions", share.partitions},
                   {"op_types", nlohmann::ordered_json(share.op_types)}});
  }
  return {{"session", placement.session},
          {"requested_ep", placement.requested_ep},
          {"nodes", placement.total_nodes},
          {"eps", std::move(eps)}};
}

std::string PlacementLine(const nlohmann::ordered_json& placement) {
  std::string line = placement.at("session").get<std::string>() + ":";
  const nlohmann::ordered_json& eps = placement.at("eps");
  if (eps.empty()) return line + " no nodes";
  for (size_t i = 0; i < eps.size(); ++i) {
    const nlohmann::ordered_json& share = eps[i];
    const std::string ep = share.at("ep").get<std::string>();
    line += (i ? ", " : " ") + ShortEpName(ep) + " " + std::to_string(share.at("nodes").get<int64_t>());
    if (i == 0) {
      line += "/" + std::to_string(placement.at("nodes").get<int64_t>()) + " nodes";
      // A kernel-registering EP lists every node as its own subgraph: partitions say nothing there.
      if (ep != kCpuEpName) {
        const int64_t partitions = share.at("partitions").get<int64_t>();
        line += " (" + std::to_string(partitions) + (partitions == 1 ? " partition)" : " partitions)");
      }
    } else {
      line += " (" + TopOpTypes(share.at("op_types"), kOpTypesShown) + ")";
    }
  }
  return line;
}

}  // namespace modelkit::report
