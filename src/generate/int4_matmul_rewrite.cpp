#include "int4_matmul_rewrite.h"

#include <map>
#include <set>
#include <vector>

#include "int4_matmul_kernel.h"
#include "int4_matmul_op.h"
#include "modelkit/base/protobuf_fields.h"
#include "onnx_fields.h"

namespace modelkit::generate {
namespace {

using namespace onnx_fields;  // NOLINT(google-build-using-namespace): the field numbers read as in the schema

constexpr const char* kWhat = "model.onnx";
constexpr int64_t kBits = 4, kAccuracyLevelInt8 = 4;

// The node's integer attributes by name.
std::map<std::string, int64_t, std::less<>> IntAttributes(const ProtobufMessage& node) {
  std::map<std::string, int64_t, std::less<>> values;
  for (std::string_view attribute : BytesFields(node, kNodeAttribute)) {
    const ProtobufMessage fields = ParseProtobuf(attribute, kWhat);
    values[std::string(FirstBytes(fields, kAttributeName))] = FirstVarint(fields, kAttributeInt, 0);
  }
  return values;
}

int64_t ValueOr(const std::map<std::string, int64_t, std::less<>>& values, std::string_view name, int64_t otherwise) {
  const auto found = values.find(name);
  return found == values.end() ? otherwise : found->second;
}

bool Qualifies(const ProtobufMessage& node, const std::map<std::string, uint64_t, std::less<>>& initializer_types,
               const std::set<std::string, std::less<>>& graph_inputs) {
  if (FirstBytes(node, kNodeOpType) != "MatMulNBits" || FirstBytes(node, kNodeDomain) != "com.microsoft") return false;
  const std::vector<std::string_view> inputs = BytesFields(node, kNodeInput);  // A, B, scales and nothing else
  if (inputs.size() != 3 || BytesFields(node, kNodeOutput).size() != 1) return false;
  const auto constant_of_type = [&](std::string_view name, uint64_t type) {
    const auto found = initializer_types.find(name);
    return found != initializer_types.end() && found->second == type && !graph_inputs.contains(name);
  };
  if (!constant_of_type(inputs[1], kTensorUint8) || !constant_of_type(inputs[2], kTensorFloat)) return false;
  const auto attributes = IntAttributes(node);
  const int64_t k = ValueOr(attributes, "K", 0), n = ValueOr(attributes, "N", 0);
  return k > 0 && n > 0 && k % static_cast<int64_t>(kInt4BlockSize) == 0 &&
         ValueOr(attributes, "bits", kBits) == kBits &&
         ValueOr(attributes, "block_size", 0) == static_cast<int64_t>(kInt4BlockSize) &&
         ValueOr(attributes, "accuracy_level", 0) == kAccuracyLevelInt8;
}

// Whether `model` already imports an opset of `domain` (a second import of one domain is an invalid model).
bool ImportsDomain(const ProtobufMessage& model, std::string_view domain) {
  for (std::string_view opset : BytesFields(model, kModelOpsetImport)) {
    if (FirstBytes(ParseProtobuf(opset, kWhat), kOpsetDomain) == domain) return true;
  }
  return false;
}

}  // namespace

std::optional<Int4MatMulRewrite> UseInt4MatMulKernel(std::string_view model) {
  ProtobufMessage model_fields = ParseProtobuf(model, kWhat);
  ProtobufField* graph_field = GraphField(model_fields);
  if (graph_field == nullptr) return std::nullopt;
  ProtobufMessage graph = ParseProtobuf(graph_field->bytes, kWhat);

  std::map<std::string, uint64_t, std::less<>> initializer_types;
  std::set<std::string, std::less<>> graph_inputs;
  for (const ProtobufField& field : graph) {
    if (field.type != WireType::kLengthDelimited) continue;
    if (field.number == kGraphInitializer) {
      const ProtobufMessage tensor = ParseProtobuf(field.bytes, kWhat);
      initializer_types[std::string(FirstBytes(tensor, kTensorName))] =
          static_cast<uint64_t>(FirstVarint(tensor, kTensorDataType, 0));
    } else if (field.number == kGraphInput) {
      graph_inputs.insert(std::string(FirstBytes(ParseProtobuf(field.bytes, kWhat), kValueInfoName)));
    }
  }

  Int4MatMulRewrite result;
  for (ProtobufField& field : graph) {
    if (field.number != kGraphNode || field.type != WireType::kLengthDelimited) continue;
    ProtobufMessage node = ParseProtobuf(field.bytes, kWhat);
    if (!Qualifies(node, initializer_types, graph_inputs)) continue;
    for (ProtobufField& node_field : node) {
      if (node_field.number == kNodeOpType) node_field.bytes = kInt4MatMulOpType;
      if (node_field.number == kNodeDomain) node_field.bytes = kInt4MatMulDomain;
    }
    field.bytes = SerializeProtobuf(node);
    ++result.replaced;
  }
  if (result.replaced == 0) return std::nullopt;
  graph_field->bytes = SerializeProtobuf(graph);
  if (!ImportsDomain(model_fields, kInt4MatMulDomain)) {
    model_fields.push_back(ProtobufField::Bytes(
        kModelOpsetImport, SerializeProtobuf({ProtobufField::Bytes(kOpsetDomain, kInt4MatMulDomain),
                                              ProtobufField::Varint(kOpsetVersion, 1)})));
  }
  result.model = SerializeProtobuf(model_fields);
  return result;
}

}  // namespace modelkit::generate
