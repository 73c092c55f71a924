// A minimal reader of ONNX TensorProto files (the test_data_set_N/{input,output}_K.pb files of the ONNX conformance
// suite), written against the protobuf wire format so the tests need no protobuf library, and conversions between
// them and ORT values.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace modelkit::test {

struct TensorProtoData {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;  // same numbering as TensorProto
  std::vector<int64_t> dims;
  std::vector<std::byte> bytes;      // little-endian elements (not for strings)
  std::vector<std::string> strings;  // string tensors only
};

// Parses a serialised TensorProto. Returns std::nullopt (with `error` set) for malformed input, external data, or an
// element type whose typed fields it cannot convert.
std::optional<TensorProtoData> ParseTensorProto(const std::string& bytes, std::string* error);
std::optional<TensorProtoData> ReadTensorProto(const std::filesystem::path& file, std::string* error);

// A test-data value of any type the suite uses: a tensor, a sequence of tensors, or an empty optional.
struct ProtoValue {
  enum class Kind { kTensor, kSequence, kNone };
  Kind kind = Kind::kTensor;
  TensorProtoData tensor;
  std::vector<TensorProtoData> sequence;
};

// Parses `bytes` as the message a value of ONNX type `type` is stored as: TensorProto for tensors, SequenceProto (of
// tensors) for sequences, OptionalProto for optionals. std::nullopt (with `error` set) for anything else.
std::optional<ProtoValue> ParseValueProto(const std::string& bytes, ONNXType type, std::string* error);

// A CPU tensor holding `tensor` (which must outlive it unless it holds strings, which are copied).
Ort::Value ToOrtValue(TensorProtoData& tensor);

// Compares `actual` with `expected` like the ONNX backend tests: same type and shape; floating point elements within
// rtol 1e-3 / atol 1e-5 (NaN equals NaN); everything else exactly. Returns "" when they match, else a description.
std::string CompareTensor(const Ort::Value& actual, const TensorProtoData& expected);

// An ORT value for `value` (tensors as ToOrtValue, sequences as ORT sequences); null for an empty optional.
Ort::Value ToOrtValue(ProtoValue& value);

// CompareTensor for every kind of value. Returns "" when `actual` matches `expected`.
std::string CompareValue(const Ort::Value& actual, const ProtoValue& expected);

}  // namespace modelkit::test
