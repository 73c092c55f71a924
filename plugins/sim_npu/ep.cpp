#include "ep.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "compatibility.h"
#include "compiled_partition.h"
#include "context_blob.h"
#include "factory.h"
#include "node_support.h"
#include "partition_model.h"
#include "partitioner.h"
#include "run_counters.h"

namespace sim_npu {
namespace {

SimNpuEp& Self(OrtEp* self) { return *static_cast<SimNpuEp*>(self); }

std::string SourceOf(Ort::ConstNode node) {
  Ort::ConstOpAttr attribute{nullptr};
  if (!node.GetAttributeByName("source", attribute).IsOK() || attribute == nullptr) return "";
  std::string source;
  if (!attribute.GetValue(source).IsOK()) return "";
  return source;
}

std::vector<std::string> ValueNames(const std::vector<Ort::ConstValueInfo>& values) {
  std::vector<std::string> names;
  for (const Ort::ConstValueInfo& value : values) names.push_back(value == nullptr ? "" : value.GetName());
  return names;
}

// Serialises `model` to ONNX bytes with a nested compile on the CPU EP only, which compiles nothing and writes the
// model as it is.
std::string SerialiseModel(Ort::Env& env, const Ort::Model& model) {
  Ort::SessionOptions cpu_only;
  Ort::ModelCompilationOptions compile(env, cpu_only);
  compile.SetInputModel(model);
  Ort::AllocatorWithDefaultOptions allocator;
  void* buffer = nullptr;
  size_t size = 0;
  compile.SetOutputModelBuffer(allocator, &buffer, &size);
  Ort::ThrowOnError(Ort::CompileModel(env, compile));
  std::string bytes(static_cast<const char*>(buffer), size);
  allocator.Free(buffer);
  return bytes;
}

// crash_at_exit: a driver that crashes while the process unloads it, after the compiled model was written.
void CrashAtExit() {
  std::fputs("sim_npu: the NPU driver crashed at exit (fault injected by the crash_at_exit=1 option)\n", stderr);
  std::abort();
}

}  // namespace

SimNpuEp::SimNpuEp(SimNpuFactory& factory, SimNpuOptions options, const OrtLogger* logger)
    : OrtEp{}, factory_(factory), name_(factory.ep_name()), options_(std::move(options)), logger_(logger) {
  ort_version_supported = ORT_API_VERSION;
  GetName = GetNameImpl;
  GetCapability = GetCapabilityImpl;
  Compile = CompileImpl;
  ReleaseNodeComputeInfos = ReleaseNodeComputeInfosImpl;
  GetCompiledModelCompatibilityInfo = GetCompiledModelCompatibilityInfoImpl;
  compatibility_info_ = CompatibilityInfo(name_, kVersion);
}

const char* SimNpuEp::GetNameImpl(const OrtEp* self) noexcept {
  return static_cast<const SimNpuEp*>(self)->name_.c_str();
}

OrtStatus* SimNpuEp::GetCapabilityImpl(OrtEp* self, const OrtGraph* graph, OrtEpGraphSupportInfo* support) noexcept {
  return Guard([&] { Self(self).ClaimNodes(Ort::ConstGraph{graph}, support); });
}

OrtStatus* SimNpuEp::CompileImpl(OrtEp* self, const OrtGraph** graphs, const OrtNode** fused_nodes, size_t count,
                                 OrtNodeComputeInfo** compute_infos, OrtNode** ep_context_nodes) noexcept {
  return Guard([&] { Self(self).CompilePartitions(graphs, fused_nodes, count, compute_infos, ep_context_nodes); });
}

// ORT stores this in the compiled model's metadata and hands it to the factory's
// ValidateCompiledModelCompatibilityInfo when an application asks whether the model suits this EP.
const char* SimNpuEp::GetCompiledModelCompatibilityInfoImpl(OrtEp* self, const OrtGraph*) noexcept {
  return Self(self).compatibility_info_.c_str();
}

void SimNpuEp::ReleaseNodeComputeInfosImpl(OrtEp*, OrtNodeComputeInfo** compute_infos, size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) delete static_cast<PartitionComputeInfo*>(compute_infos[i]);
}

void SimNpuEp::ClaimNodes(Ort::ConstGraph graph, OrtEpGraphSupportInfo* support) {
  // Bodies of If/Loop/Scan read outer-scope values the inner session could not see: they stay with the CPU EP.
  if (graph.GetParentNode() != nullptr) return;
  const std::vector<Ort::ConstNode> nodes = graph.GetNodes();
  std::unordered_map<size_t, size_t> index_of_id;
  for (size_t i = 0; i < nodes.size(); ++i) index_of_id[nodes[i].GetId()] = i;

  EpCounters& counters = CountersFor(name_);
  OrtNodeFusionOptions fusion{};
  fusion.ort_version_supported = ORT_API_VERSION;
  // ORT keeps the constant initializers alive and passes them in: the inner models reference those held in memory in
  // place (see BuildPartitionModel).
  fusion.drop_constant_initializers = false;

  std::vector<PartitionNode> views(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Ort::ConstNode& node = nodes[i];
    if (IsEpContextNode(node)) {
      // A context node of this EP is a compiled partition on its own.
      if (SourceOf(node) == name_) {
        const OrtNode* single = node;
        Ort::ThrowOnError(EpApi().EpGraphSupportInfo_AddNodesToFuse(support, &single, 1, &fusion));
        ++counters.nodes_claimed;
      }
    } else if (const std::string assigned = node.GetEpName(); !assigned.empty() && assigned != name_) {
      // Taken by an EP ahead of this one. ORT treats such a node as unsupported when it checks a group, so a group
      // holding it would be dropped with all the others.
    } else if (const std::string reason = UnsupportedReason(node, options_); !reason.empty()) {
      Log(ORT_LOGGING_LEVEL_INFO,
          "node '" + node.GetName() + "' (" + node.GetOperatorType() + ") is left to other EPs: " + reason);
    } else {
      views[i].supported = true;
    }
    std::vector<Ort::ConstValueInfo> inputs = node.GetInputs();
    const std::vector<Ort::ConstValueInfo> implicit = node.GetImplicitInputs();
    inputs.insert(inputs.end(), implicit.begin(), implicit.end());
    for (const Ort::ConstValueInfo& input : inputs) {
      if (input == nullptr) continue;
      const Ort::ConstNode producer = input.GetProducerNode().node;
      if (producer == nullptr) continue;
      if (auto found = index_of_id.find(producer.GetId()); found != index_of_id.end()) {
        views[i].producers.push_back(found->second);
      }
    }
  }
  for (const std::vector<size_t>& group : GroupSupportedNodes(views)) {
    std::vector<const OrtNode*> members;
    for (size_t index : group) members.push_back(nodes[index]);
    Ort::ThrowOnError(EpApi().EpGraphSupportInfo_AddNodesToFuse(support, members.data(), members.size(), &fusion));
    counters.nodes_claimed += static_cast<int64_t>(members.size());
  }
}

void SimNpuEp::Log(OrtLoggingLevel level, const std::string& message) const {
  const std::string text = name_ + ": " + message;
  Ort::Status ignored{
      OrtApiTable().Logger_LogMessage(logger_, level, text.c_str(), ORT_TSTR(__FILE__), __LINE__, "SimNpuEp")};
}

void SimNpuEp::SimulateCompiler() const {
  // Injected faults hit the offline compiler only (EPContext generation): a session that compiles its partitions
  // just in time still works, as the fallback after a failed context-binary compile expects.
  if (options_.crash_compile && options_.context_enable) {
    std::fprintf(stderr, "%s: the NPU compiler crashed (fault injected by the crash_compile=1 option)\n",
                 name_.c_str());
    std::abort();
  }
  if (options_.crash_at_exit && options_.context_enable) {
    static std::once_flag armed;
    std::call_once(armed, [] { std::atexit(CrashAtExit); });
  }
  if (options_.fail_compile && options_.context_enable) {
    throw Ort::Exception(name_ + ": the NPU compiler failed (fault injected by the fail_compile=1 option)",
                         ORT_EP_FAIL);
  }
  if (options_.compile_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(options_.compile_delay_ms));
}

void SimNpuEp::CompilePartitions(const OrtGraph** graphs, const OrtNode** fused_nodes, size_t count,
                                 OrtNodeComputeInfo** compute_infos, OrtNode** ep_context_nodes) {
  EpCounters& counters = CountersFor(name_);
  bool compiles_source = false;
  for (size_t i = 0; i < count; ++i) {
    const std::vector<Ort::ConstNode> nodes = Ort::ConstGraph{graphs[i]}.GetNodes();
    compiles_source |= !(nodes.size() == 1 && IsEpContextNode(nodes[0]));
  }
  if (compiles_source) SimulateCompiler();

  Ort::Env& env = factory_.InnerEnv();
  for (size_t i = 0; i < count; ++i) {
    const Ort::ConstGraph graph{graphs[i]};
    const Ort::ConstNode fused{fused_nodes[i]};
    const std::vector<std::string> fused_inputs = ValueNames(fused.GetInputs());
    const std::vector<std::string> fused_outputs = ValueNames(fused.GetOutputs());
    const std::vector<Ort::ConstNode> nodes = graph.GetNodes();
    Ort::SessionOptions inner_options;
    std::unique_ptr<CompiledPartition> partition;

    if (nodes.size() == 1 && IsEpContextNode(nodes[0])) {
      if (options_.context_enable) {
        throw Ort::Exception(name_ +
                                 ": the model is already compiled (it has EPContext nodes); compile the source "
                                 "model instead",
                             ORT_INVALID_ARGUMENT);
      }
      const ContextBlob blob = ReadEpContextNode(nodes[0], graph.GetModelPath());
      if (blob.ep_name != name_) {
        throw Ort::Exception("EPContext node '" + nodes[0].GetName() + "' was compiled by " + blob.ep_name +
                                 " and cannot run on " + name_,
                             ORT_INVALID_GRAPH);
      }
      Ort::Session session(env, blob.model_bytes.data(), blob.model_bytes.size(), inner_options);
      partition = std::make_unique<CompiledPartition>(std::move(session), fused.GetName(), fused_inputs, fused_outputs,
                                                      counters, options_.run_delay_percent);
      ++counters.contexts_loaded;
    } else if (options_.context_enable) {
      PartitionModel model = BuildPartitionModel(graph, fused, WeightMode::kCopy);
      const ContextBlob blob{name_, kVersion, SerialiseModel(env, model.model)};
      if (!options_.compile_only) {
        Ort::Session session(env, blob.model_bytes.data(), blob.model_bytes.size(), inner_options);
        partition = std::make_unique<CompiledPartition>(std::move(session), fused.GetName(), fused_inputs,
                                                        fused_outputs, counters, options_.run_delay_percent);
      }
      EpContextTarget target{options_.context_embed, options_.context_file_path};
      if (target.output_model_path.empty() && !graph.GetModelPath().empty()) {
        // ORT's default output name when none is given: <source stem>_ctx.onnx beside the source.
        const std::filesystem::path source(graph.GetModelPath());
        target.output_model_path = source.parent_path() / (source.stem().string() + "_ctx.onnx");
      }
      Ort::Node context_node = MakeEpContextNode(fused, model.input_names, blob, target);
      ep_context_nodes[i] = context_node.release();
      ++counters.partitions_compiled;
    } else {
      PartitionModel model = BuildPartitionModel(graph, fused, WeightMode::kReferenceInPlace);
      Ort::Session session(env, model.model, inner_options);
      partition = std::make_unique<CompiledPartition>(std::move(session), fused.GetName(), fused_inputs, fused_outputs,
                                                      counters, options_.run_delay_percent);
      ++counters.partitions_compiled;
    }
    compute_infos[i] = new PartitionComputeInfo(std::move(partition));
  }
}

}  // namespace sim_npu
