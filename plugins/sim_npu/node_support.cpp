#include "node_support.h"

#include <vector>

namespace sim_npu {
namespace {

// "" when the value can cross a partition boundary, else why not.
std::string ValueProblem(Ort::ConstValueInfo value, bool compiling) {
  if (value == nullptr) return "";  // an omitted optional input or output
  const Ort::ConstTypeInfo type = value.TypeInfo();
  if (type == nullptr) return "value '" + value.GetName() + "' has no type";
  if (type.GetONNXType() != ONNX_TYPE_TENSOR) return "value '" + value.GetName() + "' is not a tensor";
  if (compiling && type.GetTensorTypeAndShapeInfo().GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    return "string value '" + value.GetName() + "' cannot cross an EPContext node";
  }
  return "";
}

// "" when every dimension of the tensor `value` is fixed, else which one is not. A value ORT knows no shape of has
// no dimensions to check.
std::string DynamicDimension(Ort::ConstValueInfo value) {
  if (value == nullptr) return "";
  const Ort::ConstTypeInfo type = value.TypeInfo();
  if (type == nullptr || type.GetONNXType() != ONNX_TYPE_TENSOR) return "";
  const std::vector<int64_t> dims = type.GetTensorTypeAndShapeInfo().GetShape();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return "value '" + value.GetName() + "' has a dynamic dimension " + std::to_string(i) + " (static_shapes=1)";
    }
  }
  return "";
}

}  // namespace

bool IsEpContextNode(Ort::ConstNode node) {
  return node.GetOperatorType() == "EPContext" && node.GetDomain() == kMsDomain;
}

std::string UnsupportedReason(Ort::ConstNode node, const SimNpuOptions& options) {
  try {
    const std::string op_type = node.GetOperatorType();
    if (IsEpContextNode(node)) return "EPContext nodes are claimed only by the EP named in their source";
    if (options.op_deny.count(op_type)) return op_type + " is in op_deny";
    if (!options.op_allow.empty() && !options.op_allow.count(op_type)) return op_type + " is not in op_allow";
    for (const Ort::ConstOpAttr& attribute : node.GetAttributes()) {
      switch (attribute.GetType()) {
        case ORT_OP_ATTR_INT:
        case ORT_OP_ATTR_INTS:
        case ORT_OP_ATTR_FLOAT:
        case ORT_OP_ATTR_FLOATS:
        case ORT_OP_ATTR_STRING:
        case ORT_OP_ATTR_STRINGS:
          break;
        default:
          return "attribute '" + attribute.GetName() + "' has a type the model editor cannot create";
      }
    }
    if (!node.GetImplicitInputs().empty()) return "the node reads outer-scope values";
    for (const auto& list : {node.GetInputs(), node.GetOutputs()}) {
      for (const Ort::ConstValueInfo& value : list) {
        if (std::string problem = ValueProblem(value, options.context_enable); !problem.empty()) return problem;
        if (options.static_shapes) {
          if (std::string dynamic = DynamicDimension(value); !dynamic.empty()) return dynamic;
        }
      }
    }
    return "";
  } catch (const Ort::Exception& error) {
    return std::string("cannot inspect the node: ") + error.what();
  }
}

}  // namespace sim_npu
