// A small writer for the subset of ONNX's protobuf messages a decoder needs (ModelProto, GraphProto, NodeProto,
// AttributeProto, ValueInfoProto, TensorProto with external data). Weights are appended to the external data file
// as they are added, so a model of any size is written with one tensor in memory at a time; only the graph
// structure is held until Finish().
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace modelkit::builder {

// ONNX TensorProto.DataType values used here.
enum class OnnxType : int { kFloat = 1, kUint8 = 2, kInt32 = 6, kInt64 = 7, kFloat16 = 10 };

// One dimension: a fixed size or a symbolic name.
using OnnxDim = std::variant<int64_t, std::string>;

struct OnnxAttribute {
  std::string name;
  enum class Kind { kInt, kFloat, kInts } kind = Kind::kInt;
  int64_t i = 0;
  float f = 0.0f;
  std::vector<int64_t> ints;
};

inline OnnxAttribute IntAttr(std::string name, int64_t value) {
  return {std::move(name), OnnxAttribute::Kind::kInt, value, 0.0f, {}};
}
inline OnnxAttribute FloatAttr(std::string name, float value) {
  return {std::move(name), OnnxAttribute::Kind::kFloat, 0, value, {}};
}

class OnnxModelWriter {
 public:
  // The model goes to `model_path`; initializers of at least kExternalThreshold bytes go to `data_file_name`
  // beside it (created on first use, 4 KiB-aligned offsets so ORT can map them).
  OnnxModelWriter(std::filesystem::path model_path, std::string data_file_name);

  void AddInput(const std::string& name, OnnxType type, const std::vector<OnnxDim>& dims);
  void AddOutput(const std::string& name, OnnxType type, const std::vector<OnnxDim>& dims);
  void AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
               const std::vector<std::string>& outputs, const std::vector<OnnxAttribute>& attributes = {},
               const std::string& domain = "", const std::string& name = "");
  void AddInitializer(const std::string& name, OnnxType type, const std::vector<int64_t>& dims,
                      std::span<const uint8_t> bytes);
  template <typename T>
  void AddInitializer(const std::string& name, OnnxType type, const std::vector<int64_t>& dims,
                      std::span<const T> values) {
    AddInitializer(name, type, dims,
                   std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()));
  }

  // fp32 values stored as `type` (kFloat or kFloat16, converted here).
  void AddFloats(const std::string& name, OnnxType type, const std::vector<int64_t>& dims,
                 std::span<const float> values);

  // Writes the model file and closes the data file. Returns the bytes written (model + data).
  uint64_t Finish();

  static constexpr uint64_t kExternalThreshold = 1024;

 private:
  std::filesystem::path model_path_;
  std::string data_file_name_;
  std::ofstream data_;
  uint64_t data_size_ = 0;
  std::string nodes_;         // serialised NodeProto fields of the graph
  std::string initializers_;  // serialised TensorProto fields
  std::string inputs_;
  std::string outputs_;
};

}  // namespace modelkit::builder
