#include "last_position_logits.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "modelkit/base/error.h"
#include "modelkit/base/protobuf_fields.h"
#include "onnx_fields.h"

namespace modelkit::generate {
namespace {

using namespace onnx_fields;  // NOLINT(google-build-using-namespace): the field numbers read as in the schema

constexpr int64_t kMinimumOpset = 13;

constexpr const char* kWhat = "model.onnx";
constexpr const char* kPrefix = "modelkit/last_position/";

struct Node {
  size_t field = 0;        // index of the node's field in the graph
  ProtobufMessage fields;  // owns what the views below see (moving a Node keeps its elements where they are)
  std::vector<std::string_view> inputs, outputs;
  std::string_view op_type, domain;
};

bool ImportsOpset(const ProtobufMessage& model, int64_t minimum) {
  for (std::string_view opset : BytesFields(model, kModelOpsetImport)) {
    const ProtobufMessage fields = ParseProtobuf(opset, kWhat);
    const std::string_view domain = FirstBytes(fields, kOpsetDomain);
    if (domain.empty() || domain == "ai.onnx") return FirstVarint(fields, kOpsetVersion, 0) >= minimum;
  }
  return false;
}

ProtobufField Int64Initializer(const std::string& name, int64_t value) {
  std::string raw(sizeof(value), '\0');
  std::memcpy(raw.data(), &value, sizeof(value));  // raw_data is little-endian, as this host
  return ProtobufField::Bytes(
      kGraphInitializer,
      SerializeProtobuf({ProtobufField::Varint(kTensorDims, 1), ProtobufField::Varint(kTensorDataType, kTensorInt64),
                         ProtobufField::Bytes(kTensorName, name), ProtobufField::Bytes(kTensorRawData, raw)}));
}

// The graph output `value_info` re-encoded with its second dimension fixed at 1; nullopt when it is not declared as
// a 3-D tensor whose second dimension may be other than 1.
std::optional<std::string> WithSecondDimensionOne(std::string_view value_info) {
  ProtobufMessage info = ParseProtobuf(value_info, kWhat);
  for (ProtobufField& type : info) {
    if (type.number != kValueInfoType || type.type != WireType::kLengthDelimited) continue;
    ProtobufMessage type_fields = ParseProtobuf(type.bytes, kWhat);
    for (ProtobufField& tensor : type_fields) {
      if (tensor.number != kTypeTensor || tensor.type != WireType::kLengthDelimited) continue;
      ProtobufMessage tensor_fields = ParseProtobuf(tensor.bytes, kWhat);
      for (ProtobufField& shape : tensor_fields) {
        if (shape.number != kTensorTypeShape || shape.type != WireType::kLengthDelimited) continue;
        ProtobufMessage dims = ParseProtobuf(shape.bytes, kWhat);
        std::vector<ProtobufField*> dim_fields;
        for (ProtobufField& dim : dims) {
          if (dim.number == kShapeDim && dim.type == WireType::kLengthDelimited) dim_fields.push_back(&dim);
        }
        if (dim_fields.size() != 3) return std::nullopt;
        if (FirstVarint(ParseProtobuf(dim_fields[1]->bytes, kWhat), kDimValue, 0) == 1) return std::nullopt;
        dim_fields[1]->bytes = SerializeProtobuf({ProtobufField::Varint(kDimValue, 1)});
        shape.bytes = SerializeProtobuf(dims);
        tensor.bytes = SerializeProtobuf(tensor_fields);
        type.bytes = SerializeProtobuf(type_fields);
        return SerializeProtobuf(info);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> SliceLogitsToLastPosition(std::string_view model, const std::string& logits) {
  ProtobufMessage model_fields = ParseProtobuf(model, kWhat);
  if (!ImportsOpset(model_fields, kMinimumOpset)) return std::nullopt;
  ProtobufField* graph_field = GraphField(model_fields);
  if (graph_field == nullptr) return std::nullopt;
  ProtobufMessage graph = ParseProtobuf(graph_field->bytes, kWhat);

  std::vector<Node> nodes;
  std::map<std::string, size_t, std::less<>> producer;  // output name -> index in `nodes`
  std::map<std::string, int, std::less<>> readers;      // value name -> nodes and graph outputs reading it
  for (size_t i = 0; i < graph.size(); ++i) {
    if (graph[i].number != kGraphNode || graph[i].type != WireType::kLengthDelimited) continue;
    Node node;
    node.field = i;
    node.fields = ParseProtobuf(graph[i].bytes, kWhat);
    node.inputs = BytesFields(node.fields, kNodeInput);
    node.outputs = BytesFields(node.fields, kNodeOutput);
    node.op_type = FirstBytes(node.fields, kNodeOpType);
    node.domain = FirstBytes(node.fields, kNodeDomain);
    for (std::string_view input : node.inputs) ++readers[std::string(input)];
    for (std::string_view output : node.outputs) producer[std::string(output)] = nodes.size();
    nodes.push_back(std::move(node));
  }
  size_t logits_output = graph.size();
  for (size_t i = 0; i < graph.size(); ++i) {
    if (graph[i].number != kGraphOutput || graph[i].type != WireType::kLengthDelimited) continue;
    const std::string name(FirstBytes(ParseProtobuf(graph[i].bytes, kWhat), kValueInfoName));
    ++readers[name];
    if (name == logits) logits_output = i;
  }
  if (logits_output == graph.size()) return std::nullopt;

  // From the output back to the matmul, through nodes that keep every position as it is.
  std::string_view value = logits;
  const Node* matmul = nullptr;
  while (matmul == nullptr) {
    const auto found = producer.find(value);
    const auto read = readers.find(value);
    if (found == producer.end() || read == readers.end() || read->second != 1) return std::nullopt;
    const Node& node = nodes[found->second];
    if (node.inputs.empty()) return std::nullopt;
    if ((node.op_type == "MatMul" && node.domain.empty()) ||
        (node.op_type == "MatMulNBits" && node.domain == "com.microsoft")) {
      matmul = &node;
    } else if ((node.op_type == "Identity" || node.op_type == "Cast") && node.domain.empty() &&
               node.inputs.size() == 1) {
      value = node.inputs.front();
    } else {
      return std::nullopt;
    }
  }
  const std::optional<std::string> output = WithSecondDimensionOne(graph[logits_output].bytes);
  if (!output) return std::nullopt;

  const std::string hidden(matmul->inputs.front());
  const std::string last_hidden = kPrefix + std::string("hidden");
  const std::string starts = kPrefix + std::string("starts"), ends = kPrefix + std::string("ends"),
                    axes = kPrefix + std::string("axes");
  ProtobufMessage matmul_fields = matmul->fields;
  for (ProtobufField& field : matmul_fields) {
    if (field.number == kNodeInput && field.type == WireType::kLengthDelimited) {
      field.bytes = last_hidden;  // the first input: the hidden states
      break;
    }
  }
  const size_t matmul_field = matmul->field;
  graph[matmul_field].bytes = SerializeProtobuf(matmul_fields);
  graph[logits_output].bytes = *output;
  graph.push_back(Int64Initializer(starts, -1));
  graph.push_back(Int64Initializer(ends, std::numeric_limits<int64_t>::max()));
  graph.push_back(Int64Initializer(axes, 1));
  graph.push_back(ProtobufField::Bytes(
      kGraphNode, SerializeProtobuf({ProtobufField::Bytes(kNodeInput, hidden), ProtobufField::Bytes(kNodeInput, starts),
                                     ProtobufField::Bytes(kNodeInput, ends), ProtobufField::Bytes(kNodeInput, axes),
                                     ProtobufField::Bytes(kNodeOutput, last_hidden),
                                     ProtobufField::Bytes(kNodeName, kPrefix + std::string("slice")),
                                     ProtobufField::Bytes(kNodeOpType, "Slice")})));
  graph_field->bytes = SerializeProtobuf(graph);
  return SerializeProtobuf(model_fields);
}

}  // namespace modelkit::generate
