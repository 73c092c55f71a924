// Rebuilds a partition ORT handed to Compile as a standalone model with the model editor API (no API hands over a
// partition as ONNX bytes), so an inner CPU session can run it.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>
#include <vector>

namespace sim_npu {

struct PartitionModel {
  Ort::Model model{nullptr};
  std::vector<std::string> input_names;   // the fused node's inputs that are not constant initializers, in order
  std::vector<std::string> output_names;  // the fused node's outputs, in order
};

// How the partition's constant initializers enter the model. kReferenceInPlace: those ORT holds in memory are
// referenced where they are (the outer session keeps them alive; no second copy before MatMulNBits prepacks them);
// those stored in an external data file are copied, because ORT maps them only while the plugin compiles. kCopy:
// every one is copied (for a model that is serialised and outlives the session).
enum class WeightMode { kReferenceInPlace, kCopy };

// Builds the model for `partition`, whose boundary is `fused_node`. Dimension names are dropped from the boundary
// types: ORT 1.30 renames every dynamic dimension of a model-editor model to the first symbolic name, which would
// tie unrelated dimensions together. Throws Ort::Exception when the model editor rejects a piece.
PartitionModel BuildPartitionModel(Ort::ConstGraph partition, Ort::ConstNode fused_node, WeightMode weights);

}  // namespace sim_npu
