// Where ONNX Runtime placed a session's nodes, as ORT itself reports it (Session_GetEpGraphAssignmentInfo): per EP
// the nodes it runs, in how many partitions, and which operator types. Reports show it so that a fallback to CPU is
// never invisible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelkit::report {

// One subgraph ORT assigned to an EP, as ORT lists it: a compiling EP's fused partition (many nodes), or one node of
// an EP that registers kernels (the CPU EP lists every node on its own).
struct AssignedSubgraph {
  std::string ep;                     // ORT's EP name, e.g. "CPUExecutionProvider"
  std::vector<std::string> op_types;  // one per node
};

// What one EP got in one session.
struct EpShare {
  std::string ep;
  int64_t nodes = 0;
  int64_t partitions = 0;  // the subgraphs ORT lists for this EP (for a kernel-registering EP: its node count)
  std::map<std::string, int64_t> op_types;  // operator type -> node count
};

// One session's placement. `eps` lists the EP with the most nodes first (ties by name).
struct SessionPlacement {
  std::string session;       // the model file's name, or the pipeline stage's name
  std::string requested_ep;  // ORT's name of the EP the session was asked to run on ("CPUExecutionProvider": none)
  int64_t total_nodes = 0;
  std::vector<EpShare> eps;
};

inline constexpr const char* kCpuEpName = "CPUExecutionProvider";

// Sums ORT's subgraph list for `session`, which asked for `requested_ep`.
SessionPlacement SummarisePlacement(const std::string& session, const std::string& requested_ep,
                                    const std::vector<AssignedSubgraph>& subgraphs);

// The nodes `ep` got in `placement` (0 when it got none).
int64_t NodesOn(const SessionPlacement& placement, const std::string& ep);

// "SimNpuExecutionProvider ran 412 of 415 nodes of ctx; 3 fell back to CPUExecutionProvider (Gather, Shape)" when
// the requested EP got fewer than all of the session's nodes, else nullopt. A requested CPU EP never falls short: it
// is where everything else falls back to.
std::optional<std::string> PlacementShortfall(const SessionPlacement& placement);

// The report's `placement` entry: {"session", "requested_ep", "nodes", "eps": [{"ep", "nodes", "partitions",
// "op_types": {..}}]}.
nlohmann::ordered_json PlacementJson(const SessionPlacement& placement);

// An EP's name without ORT's "ExecutionProvider" suffix: "SimNpu", "CPU", "WebGpu".
std::string ShortEpName(const std::string& ep);

// One text line from PlacementJson's entry: "ctx: SimNpu 412/415 nodes (2 partitions), CPU 3 (Gather, Shape)".
// EP names lose their "ExecutionProvider" suffix; the first EP shows its share of the total and its partitions, the
// others their node count and up to 4 operator types (most nodes first).
std::string PlacementLine(const nlohmann::ordered_json& placement);

}  // namespace modelkit::report
