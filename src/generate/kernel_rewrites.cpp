#include "kernel_rewrites.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "decode_attention_op.h"
#include "fp32_matmul_op.h"
#include "int4_matmul_kernel.h"
#include "int4_matmul_op.h"
#include "modelkit/base/protobuf_fields.h"
#include "modelkit_ops.h"
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

// What the rewrites need to know of a graph's initializers.
struct Initializer {
  uint64_t type = 0;
  size_t dims = 0;
};

// The graph's constants: initializers that no graph input of the same name can override.
class Constants {
 public:
  explicit Constants(const ProtobufMessage& graph) {
    std::set<std::string, std::less<>> graph_inputs;
    for (const ProtobufField& field : graph) {
      if (field.type != WireType::kLengthDelimited || field.number != kGraphInput) continue;
      graph_inputs.insert(std::string(FirstBytes(ParseProtobuf(field.bytes, kWhat), kValueInfoName)));
    }
    for (const ProtobufField& field : graph) {
      if (field.type != WireType::kLengthDelimited || field.number != kGraphInitializer) continue;
      const ProtobufMessage tensor = ParseProtobuf(field.bytes, kWhat);
      std::string name(FirstBytes(tensor, kTensorName));
      if (graph_inputs.contains(name)) continue;
      Initializer initializer{static_cast<uint64_t>(FirstVarint(tensor, kTensorDataType, 0)), 0};
      for (const ProtobufField& dim : tensor) {
        if (dim.number != kTensorDims) continue;
        if (dim.type == WireType::kVarint) {
          ++initializer.dims;
        } else {  // packed: one varint per byte without its continuation bit
          for (const char byte : dim.bytes) initializer.dims += (static_cast<unsigned char>(byte) & 0x80) == 0;
        }
      }
      initializers_[std::move(name)] = initializer;
    }
  }

  // Whether `name` is a constant of `type` (and, when `dims` is given, of that rank).
  bool Is(std::string_view name, uint64_t type, std::optional<size_t> dims = std::nullopt) const {
    const auto found = initializers_.find(name);
    return found != initializers_.end() && found->second.type == type && (!dims || found->second.dims == *dims);
  }

 private:
  std::map<std::string, Initializer, std::less<>> initializers_;
};

bool QualifiesForInt4(const ProtobufMessage& node, const Constants& constants) {
  if (FirstBytes(node, kNodeOpType) != "MatMulNBits" || FirstBytes(node, kNodeDomain) != "com.microsoft") return false;
  const std::vector<std::string_view> inputs = BytesFields(node, kNodeInput);  // A, B, scales and nothing else
  if (inputs.size() != 3 || BytesFields(node, kNodeOutput).size() != 1) return false;
  if (!constants.Is(inputs[1], kTensorUint8) || !constants.Is(inputs[2], kTensorFloat)) return false;
  const auto attributes = IntAttributes(node);
  const int64_t k = ValueOr(attributes, "K", 0), n = ValueOr(attributes, "N", 0);
  return k > 0 && n > 0 && k % static_cast<int64_t>(kInt4BlockSize) == 0 &&
         ValueOr(attributes, "bits", kBits) == kBits &&
         ValueOr(attributes, "block_size", 0) == static_cast<int64_t>(kInt4BlockSize) &&
         ValueOr(attributes, "accuracy_level", 0) == kAccuracyLevelInt8;
}

bool QualifiesForFp32(const ProtobufMessage& node, const Constants& constants) {
  if (FirstBytes(node, kNodeOpType) != "MatMul" || !FirstBytes(node, kNodeDomain).empty()) return false;
  const std::vector<std::string_view> inputs = BytesFields(node, kNodeInput);
  return inputs.size() == 2 && BytesFields(node, kNodeOutput).size() == 1 && constants.Is(inputs[1], kTensorFloat, 2);
}

bool QualifiesForDecodeAttention(const ProtobufMessage& node, const Constants& constants) {
  if (FirstBytes(node, kNodeOpType) != "GroupQueryAttention" || FirstBytes(node, kNodeDomain) != "com.microsoft") {
    return false;
  }
  // query, key, value, past_key, past_value, seqlens_k, total_sequence_length, cos_cache, sin_cache
  const std::vector<std::string_view> inputs = BytesFields(node, kNodeInput);
  const std::vector<std::string_view> outputs = BytesFields(node, kNodeOutput);
  if (inputs.size() != 9 || outputs.size() != 3) return false;
  if (std::any_of(inputs.begin(), inputs.end(), [](std::string_view name) { return name.empty(); })) return false;
  if (!constants.Is(inputs[7], kTensorFloat, 2) || !constants.Is(inputs[8], kTensorFloat, 2)) return false;
  static const std::set<std::string, std::less<>> kTaken = {"num_heads", "kv_num_heads", "do_rotary",
                                                            "rotary_interleaved", "scale"};
  for (std::string_view attribute : BytesFields(node, kNodeAttribute)) {
    if (!kTaken.contains(FirstBytes(ParseProtobuf(attribute, kWhat), kAttributeName))) return false;
  }
  const auto attributes = IntAttributes(node);
  return ValueOr(attributes, "do_rotary", 0) == 1 && ValueOr(attributes, "rotary_interleaved", 0) == 0;
}

// Whether `model` already imports an opset of `domain` (a second import of one domain is an invalid model).
bool ImportsDomain(const ProtobufMessage& model, std::string_view domain) {
  for (std::string_view opset : BytesFields(model, kModelOpsetImport)) {
    if (FirstBytes(ParseProtobuf(opset, kWhat), kOpsetDomain) == domain) return true;
  }
  return false;
}

// `model` with every node `qualifies` accepts turned into `op_type` of modelkit's domain, inputs, output and
// attributes kept; nullopt when none qualifies.
std::optional<KernelRewrite> ReplaceNodes(
    std::string_view model, const std::function<bool(const ProtobufMessage&, const Constants&)>& qualifies,
    const char* op_type) {
  ProtobufMessage model_fields = ParseProtobuf(model, kWhat);
  ProtobufField* graph_field = GraphField(model_fields);
  if (graph_field == nullptr) return std::nullopt;
  ProtobufMessage graph = ParseProtobuf(graph_field->bytes, kWhat);
  const Constants constants(graph);

  KernelRewrite result;
  for (ProtobufField& field : graph) {
    if (field.number != kGraphNode || field.type != WireType::kLengthDelimited) continue;
    ProtobufMessage node = ParseProtobuf(field.bytes, kWhat);
    if (!qualifies(node, constants)) continue;
    bool has_domain = false;
    for (ProtobufField& node_field : node) {
      if (node_field.number == kNodeOpType) node_field.bytes = op_type;
      if (node_field.number == kNodeDomain) {
        node_field.bytes = kModelkitOpsDomain;
        has_domain = true;
      }
    }
    if (!has_domain) node.push_back(ProtobufField::Bytes(kNodeDomain, kModelkitOpsDomain));  // the default domain
    field.bytes = SerializeProtobuf(node);
    ++result.replaced;
  }
  if (result.replaced == 0) return std::nullopt;
  graph_field->bytes = SerializeProtobuf(graph);
  if (!ImportsDomain(model_fields, kModelkitOpsDomain)) {
    model_fields.push_back(ProtobufField::Bytes(
        kModelOpsetImport, SerializeProtobuf({ProtobufField::Bytes(kOpsetDomain, kModelkitOpsDomain),
                                              ProtobufField::Varint(kOpsetVersion, 1)})));
  }
  result.model = SerializeProtobuf(model_fields);
  return result;
}

}  // namespace

std::optional<KernelRewrite> UseInt4MatMulKernel(std::string_view model) {
  return ReplaceNodes(model, QualifiesForInt4, kInt4MatMulOpType);
}

std::optional<KernelRewrite> UseFp32MatMulKernel(std::string_view model) {
  return ReplaceNodes(model, QualifiesForFp32, kFp32MatMulOpType);
}

std::optional<KernelRewrite> UseDecodeAttentionKernel(std::string_view model) {
  return ReplaceNodes(model, QualifiesForDecodeAttention, kDecodeAttentionOpType);
}

}  // namespace modelkit::generate
