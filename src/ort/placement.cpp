#include "modelkit/ort/placement.h"

#include <onnxruntime_session_options_config_keys.h>

namespace modelkit::ort {

void RecordPlacement(Ort::SessionOptions& options) {
  options.AddConfigEntry(kOrtSessionOptionsRecordEpGraphAssignmentInfo, "1");
}

std::optional<report::SessionPlacement> ReadPlacement(const Ort::Session& session, const std::string& name,
                                                      const std::string& requested_ep) {
  std::vector<Ort::ConstEpAssignedSubgraph> subgraphs;
  try {
    subgraphs = session.GetEpGraphAssignmentInfo();
  } catch (const Ort::Exception&) {
    return std::nullopt;  // not recorded for this session
  }
  std::vector<report::AssignedSubgraph> assigned;
  for (const Ort::ConstEpAssignedSubgraph& subgraph : subgraphs) {
    report::AssignedSubgraph entry{subgraph.GetEpName(), {}};
    for (const Ort::ConstEpAssignedNode& node : subgraph.GetNodes()) entry.op_types.push_back(node.GetOperatorType());
    assigned.push_back(std::move(entry));
  }
  return report::SummarisePlacement(name, requested_ep, assigned);
}

}  // namespace modelkit::ort
