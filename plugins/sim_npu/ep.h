// The simulated NPU execution provider for one session: claims nodes (GetCapability), compiles each fused partition
// into an inner CPU session or restores it from an EPContext node (Compile), and emits EPContext nodes when the
// session compiles a model (ep.context_enable=1).
#pragma once

#include <string>

#include "api.h"
#include "options.h"

namespace sim_npu {

class SimNpuFactory;

class SimNpuEp : public OrtEp {
 public:
  SimNpuEp(SimNpuFactory& factory, SimNpuOptions options, const OrtLogger* logger);

 private:
  static const char* ORT_API_CALL GetNameImpl(const OrtEp* self) noexcept;
  static OrtStatus* ORT_API_CALL GetCapabilityImpl(OrtEp* self, const OrtGraph* graph,
                                                   OrtEpGraphSupportInfo* support) noexcept;
  static OrtStatus* ORT_API_CALL CompileImpl(OrtEp* self, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                             size_t count, OrtNodeComputeInfo** compute_infos,
                                             OrtNode** ep_context_nodes) noexcept;
  static void ORT_API_CALL ReleaseNodeComputeInfosImpl(OrtEp* self, OrtNodeComputeInfo** compute_infos,
                                                       size_t count) noexcept;
  static const char* ORT_API_CALL GetCompiledModelCompatibilityInfoImpl(OrtEp* self, const OrtGraph* graph) noexcept;

  void ClaimNodes(Ort::ConstGraph graph, OrtEpGraphSupportInfo* support);
  void CompilePartitions(const OrtGraph** graphs, const OrtNode** fused_nodes, size_t count,
                         OrtNodeComputeInfo** compute_infos, OrtNode** ep_context_nodes);
  // Applies the fault-injection options before a compilation of source nodes.
  void SimulateCompiler() const;
  // Logs through the session's logger; failures to log are ignored.
  void Log(OrtLoggingLevel level, const std::string& message) const;

  SimNpuFactory& factory_;
  std::string name_;
  SimNpuOptions options_;
  const OrtLogger* logger_;
  std::string compatibility_info_;
};

}  // namespace sim_npu
