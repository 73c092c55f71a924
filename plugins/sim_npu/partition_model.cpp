#include "partition_model.h"

#include <algorithm>
#include <set>

#include "tensor_copy.h"

namespace sim_npu {
namespace {

// ORT refuses in-place initializers smaller than this (they may take part in shape inference).
constexpr size_t kMinInPlaceBytes = 128;

// The tensor type of `value` with its dimension names dropped; an unknown shape stays unknown.
Ort::TypeInfo BoundaryType(Ort::ConstValueInfo value) {
  const Ort::ConstTensorTypeAndShapeInfo tensor = value.TypeInfo().GetTensorTypeAndShapeInfo();
  const OrtApi& api = Ort::GetApi();
  OrtTensorTypeAndShapeInfo* raw = nullptr;
  Ort::ThrowOnError(api.CreateTensorTypeAndShapeInfo(&raw));
  const Ort::TensorTypeAndShapeInfo fresh{raw};
  Ort::ThrowOnError(api.SetTensorElementType(raw, tensor.GetElementType()));
  if (tensor.HasShape()) {
    const std::vector<int64_t> dims = tensor.GetShape();
    Ort::ThrowOnError(api.SetDimensions(raw, dims.data(), dims.size()));
  }
  return Ort::TypeInfo::CreateTensorInfo(fresh.GetConst());
}

std::vector<Ort::ValueInfo> BoundaryValues(const std::vector<Ort::ConstValueInfo>& values,
                                           const std::vector<std::string>& names) {
  std::vector<Ort::ValueInfo> result;
  for (const Ort::ConstValueInfo& value : values) {
    const std::string name = value.GetName();
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    result.emplace_back(name, BoundaryType(value).GetConst());
  }
  return result;
}

Ort::OpAttr CopyAttribute(Ort::ConstOpAttr attribute) {
  const std::string name = attribute.GetName();
  switch (attribute.GetType()) {
    case ORT_OP_ATTR_INT: {
      int64_t value = 0;
      Ort::ThrowOnError(attribute.GetValue(value));
      return Ort::OpAttr(name.c_str(), &value, 1, ORT_OP_ATTR_INT);
    }
    case ORT_OP_ATTR_INTS: {
      std::vector<int64_t> values;
      Ort::ThrowOnError(attribute.GetValueArray(values));
      return Ort::OpAttr(name.c_str(), values.data(), static_cast<int>(values.size()), ORT_OP_ATTR_INTS);
    }
    case ORT_OP_ATTR_FLOAT: {
      float value = 0;
      Ort::ThrowOnError(attribute.GetValue(value));
      return Ort::OpAttr(name.c_str(), &value, 1, ORT_OP_ATTR_FLOAT);
    }
    case ORT_OP_ATTR_FLOATS: {
      std::vector<float> values;
      Ort::ThrowOnError(attribute.GetValueArray(values));
      return Ort::OpAttr(name.c_str(), values.data(), static_cast<int>(values.size()), ORT_OP_ATTR_FLOATS);
    }
    case ORT_OP_ATTR_STRING: {
      std::string value;
      Ort::ThrowOnError(attribute.GetValue(value));
      return Ort::OpAttr(name.c_str(), value.c_str(), static_cast<int>(value.size()), ORT_OP_ATTR_STRING);
    }
    case ORT_OP_ATTR_STRINGS: {
      std::vector<std::string> values;
      Ort::ThrowOnError(attribute.GetValueArray(values));
      std::vector<const char*> pointers;
      for (const std::string& value : values) pointers.push_back(value.c_str());
      return Ort::OpAttr(name.c_str(), pointers.data(), static_cast<int>(pointers.size()), ORT_OP_ATTR_STRINGS);
    }
    default:
      throw Ort::Exception("attribute '" + name + "' cannot be rebuilt", ORT_NOT_IMPLEMENTED);
  }
}

std::vector<std::string> Names(const std::vector<Ort::ConstValueInfo>& values) {
  std::vector<std::string> names;
  for (const Ort::ConstValueInfo& value : values) names.push_back(value == nullptr ? "" : value.GetName());
  return names;
}

// Whether the data ORT shows for `initializer` stays where it is for the life of the session. An initializer held in
// memory belongs to the model's graph, which keeps it as long as a node consumes it (the fused node does: fusion
// keeps constant initializers as its inputs). One stored in an external data file is mapped only for the OrtGraph
// handed to GetCapability / Compile and unmapped when that graph is released (onnxruntime_c_api.h,
// ValueInfo_GetInitializerValue: "Do not cache the OrtValue"); the session maps the file again, at addresses that
// need not match, so a reference kept past Compile reads another initializer's data or unmapped memory.
bool StaysInPlace(Ort::ConstValueInfo initializer) {
  Ort::ExternalInitializerInfo external{nullptr};
  Ort::ThrowOnError(initializer.GetExternalInitializerInfo(external));
  return external == nullptr;
}

void AddInitializer(Ort::Graph& graph, Ort::ConstValueInfo initializer, WeightMode weights) {
  Ort::ConstValue value{nullptr};
  Ort::ThrowOnError(initializer.GetInitializer(value));
  const auto info = value.GetTensorTypeAndShapeInfo();
  const bool plain = info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING;
  if (weights == WeightMode::kReferenceInPlace && plain && value.GetTensorSizeInBytes() >= kMinInPlaceBytes &&
      StaysInPlace(initializer)) {
    const std::vector<int64_t> shape = info.GetShape();
    const auto memory = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
    Ort::Value view =
        Ort::Value::CreateTensor(memory, const_cast<void*>(value.GetTensorRawData()), value.GetTensorSizeInBytes(),
                                 shape.data(), shape.size(), info.GetElementType());
    graph.AddInitializer(initializer.GetName(), view, /*data_is_external=*/true);
    return;
  }
  Ort::Value copy = CloneTensor(value);
  graph.AddInitializer(initializer.GetName(), copy, /*data_is_external=*/false);
}

}  // namespace

PartitionModel BuildPartitionModel(Ort::ConstGraph partition, Ort::ConstNode fused_node, WeightMode weights) {
  PartitionModel result;
  Ort::Graph graph;

  std::set<std::string> constants;
  for (const Ort::ConstValueInfo& initializer : partition.GetInitializers()) {
    if (!initializer.IsConstantInitializer()) continue;
    constants.insert(initializer.GetName());
    AddInitializer(graph, initializer, weights);
  }

  const std::vector<Ort::ConstValueInfo> fused_inputs = fused_node.GetInputs();
  const std::vector<Ort::ConstValueInfo> fused_outputs = fused_node.GetOutputs();
  for (const Ort::ConstValueInfo& input : fused_inputs) {
    if (input != nullptr && !constants.count(input.GetName())) result.input_names.push_back(input.GetName());
  }
  for (const Ort::ConstValueInfo& output : fused_outputs) result.output_names.push_back(output.GetName());
  std::vector<Ort::ValueInfo> inputs = BoundaryValues(fused_inputs, result.input_names);
  std::vector<Ort::ValueInfo> outputs = BoundaryValues(fused_outputs, result.output_names);
  graph.SetInputs(inputs);
  graph.SetOutputs(outputs);

  for (const Ort::ConstNode& node : partition.GetNodes()) {
    std::vector<Ort::OpAttr> attributes;
    for (const Ort::ConstOpAttr& attribute : node.GetAttributes()) attributes.push_back(CopyAttribute(attribute));
    Ort::Node copy(node.GetOperatorType(), node.GetDomain(), node.GetName(), Names(node.GetInputs()),
                   Names(node.GetOutputs()), attributes);
    graph.AddNode(copy);
  }

  std::vector<Ort::Model::DomainOpsetPair> opsets;
  for (const Ort::OperatorSet& opset : partition.GetOperatorSets()) {
    opsets.emplace_back(opset.domain, static_cast<int>(opset.version));
  }
  result.model = Ort::Model(opsets);
  result.model.AddGraph(graph);
  return result;
}

}  // namespace sim_npu
