// The protobuf field numbers of ONNX's messages (onnx.proto3) that the load-time graph rewrites read and write, and
// small readers over base/protobuf_fields. One home for them, so that every rewrite reads a model alike.
#pragma once

#include <cstdint>
#include <string_view>

#include "modelkit/base/protobuf_fields.h"

namespace modelkit::generate::onnx_fields {

constexpr uint32_t kModelGraph = 7, kModelOpsetImport = 8;
constexpr uint32_t kOpsetDomain = 1, kOpsetVersion = 2;
constexpr uint32_t kGraphNode = 1, kGraphInitializer = 5, kGraphInput = 11, kGraphOutput = 12;
constexpr uint32_t kNodeInput = 1, kNodeOutput = 2, kNodeName = 3, kNodeOpType = 4, kNodeAttribute = 5, kNodeDomain = 7;
constexpr uint32_t kAttributeName = 1, kAttributeInt = 3;
constexpr uint32_t kTensorDims = 1, kTensorDataType = 2, kTensorName = 8, kTensorRawData = 9;
constexpr uint32_t kValueInfoName = 1, kValueInfoType = 2, kTypeTensor = 1, kTensorTypeShape = 2;
constexpr uint32_t kShapeDim = 1, kDimValue = 1;
constexpr uint64_t kTensorFloat = 1, kTensorUint8 = 2, kTensorInt64 = 7;

// The first length-delimited payload of field `number`; empty when there is none.
inline std::string_view FirstBytes(const ProtobufMessage& message, uint32_t number) {
  for (const ProtobufField& field : message) {
    if (field.number == number && field.type == WireType::kLengthDelimited) return field.bytes;
  }
  return {};
}

// The first varint of field `number`; `otherwise` when there is none.
inline int64_t FirstVarint(const ProtobufMessage& message, uint32_t number, int64_t otherwise) {
  for (const ProtobufField& field : message) {
    if (field.number == number && field.type == WireType::kVarint) return static_cast<int64_t>(field.number_value);
  }
  return otherwise;
}

// The graph field of `model`; nullptr when it has none.
inline ProtobufField* GraphField(ProtobufMessage& model) {
  ProtobufField* graph = nullptr;
  for (ProtobufField& field : model) {
    if (field.number == kModelGraph && field.type == WireType::kLengthDelimited) graph = &field;
  }
  return graph;
}

}  // namespace modelkit::generate::onnx_fields
