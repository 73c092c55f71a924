#include "onnx_writer.h"

#include <cstring>

#include "modelkit/base/check.h"
#include "modelkit/base/error.h"
#include "modelkit/base/float16.h"
#include "modelkit/base/protobuf_fields.h"

namespace modelkit::builder {
namespace {

// A message encoded as its fields are added (base/protobuf_fields): varints, length-delimited fields and 32-bit
// floats are all ONNX needs.
class Proto {
 public:
  void Int(int field, int64_t value) {
    AppendProtobufVarint(out_, static_cast<uint32_t>(field), static_cast<uint64_t>(value));
  }
  void Bytes(int field, std::string_view bytes) { AppendProtobufBytes(out_, static_cast<uint32_t>(field), bytes); }
  void Float(int field, float value) {
    uint32_t raw = 0;
    std::memcpy(&raw, &value, sizeof(raw));
    AppendProtobufFixed32(out_, static_cast<uint32_t>(field), raw);
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

std::string ValueInfo(const std::string& name, OnnxType type, const std::vector<OnnxDim>& dims) {
  Proto shape;  // TensorShapeProto
  for (const OnnxDim& dim : dims) {
    Proto d;  // TensorShapeProto.Dimension: dim_value = 1, dim_param = 2
    if (std::holds_alternative<int64_t>(dim)) {
      d.Int(1, std::get<int64_t>(dim));
    } else {
      d.Bytes(2, std::get<std::string>(dim));
    }
    shape.Bytes(1, d.str());
  }
  Proto tensor;  // TypeProto.Tensor: elem_type = 1, shape = 2
  tensor.Int(1, static_cast<int>(type));
  tensor.Bytes(2, shape.str());
  Proto type_proto;  // TypeProto: tensor_type = 1
  type_proto.Bytes(1, tensor.str());
  Proto info;  // ValueInfoProto: name = 1, type = 2
  info.Bytes(1, name);
  info.Bytes(2, type_proto.str());
  return info.str();
}

}  // namespace

void OnnxModelWriter::AddFloats(const std::string& name, OnnxType type, const std::vector<int64_t>& dims,
                                std::span<const float> values) {
  if (type == OnnxType::kFloat) {
    AddInitializer(name, type, dims, values);
    return;
  }
  MODELKIT_CHECK(type == OnnxType::kFloat16);
  std::vector<uint16_t> halves(values.size());
  for (size_t i = 0; i < values.size(); ++i) halves[i] = FloatToHalfBits(values[i]);
  AddInitializer(name, type, dims, std::span<const uint16_t>(halves));
}

OnnxModelWriter::OnnxModelWriter(std::filesystem::path model_path, std::string data_file_name)
    : model_path_(std::move(model_path)), data_file_name_(std::move(data_file_name)) {}

void OnnxModelWriter::AddInput(const std::string& name, OnnxType type, const std::vector<OnnxDim>& dims) {
  Proto graph;
  graph.Bytes(11, ValueInfo(name, type, dims));  // GraphProto.input = 11
  inputs_ += graph.str();
}

void OnnxModelWriter::AddOutput(const std::string& name, OnnxType type, const std::vector<OnnxDim>& dims) {
  Proto graph;
  graph.Bytes(12, ValueInfo(name, type, dims));  // GraphProto.output = 12
  outputs_ += graph.str();
}

void OnnxModelWriter::AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs, const std::vector<OnnxAttribute>& attributes,
                              const std::string& domain, const std::string& name) {
  // NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5, domain = 7
  Proto node;
  for (const auto& input : inputs) node.Bytes(1, input);
  for (const auto& output : outputs) node.Bytes(2, output);
  node.Bytes(3, name.empty() ? outputs.front() + "_node" : name);
  node.Bytes(4, op_type);
  for (const OnnxAttribute& attribute : attributes) {
    // AttributeProto: name = 1, f = 2, i = 3, ints = 8, type = 20 (FLOAT 1, INT 2, INTS 7)
    Proto attr;
    attr.Bytes(1, attribute.name);
    switch (attribute.kind) {
      case OnnxAttribute::Kind::kInt:
        attr.Int(3, attribute.i);
        attr.Int(20, 2);
        break;
      case OnnxAttribute::Kind::kFloat:
        attr.Float(2, attribute.f);
        attr.Int(20, 1);
        break;
      case OnnxAttribute::Kind::kInts:
        for (const int64_t v : attribute.ints) attr.Int(8, v);
        attr.Int(20, 7);
        break;
    }
    node.Bytes(5, attr.str());
  }
  if (!domain.empty()) node.Bytes(7, domain);
  Proto graph;
  graph.Bytes(1, node.str());  // GraphProto.node = 1
  nodes_ += graph.str();
}

void OnnxModelWriter::AddInitializer(const std::string& name, OnnxType type, const std::vector<int64_t>& dims,
                                     std::span<const uint8_t> bytes) {
  // TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9, external_data = 13, data_location = 14
  Proto tensor;
  for (const int64_t d : dims) tensor.Int(1, d);
  tensor.Int(2, static_cast<int>(type));
  tensor.Bytes(8, name);
  if (bytes.size() < kExternalThreshold) {
    tensor.Bytes(9, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } else {
    if (!data_.is_open()) {
      data_.open(model_path_.parent_path() / data_file_name_, std::ios::binary | std::ios::trunc);
      if (!data_) throw RuntimeError("cannot create " + (model_path_.parent_path() / data_file_name_).string());
    }
    const uint64_t offset = (data_size_ + 4095) / 4096 * 4096;
    if (offset > data_size_) {
      const std::string padding(offset - data_size_, '\0');
      data_.write(padding.data(), static_cast<std::streamsize>(padding.size()));
    }
    data_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!data_) throw RuntimeError("cannot write " + (model_path_.parent_path() / data_file_name_).string());
    data_size_ = offset + bytes.size();
    const std::pair<const char*, std::string> entries[] = {
        {"location", data_file_name_}, {"offset", std::to_string(offset)}, {"length", std::to_string(bytes.size())}};
    for (const auto& [key, value] : entries) {
      Proto entry;  // StringStringEntryProto: key = 1, value = 2
      entry.Bytes(1, key);
      entry.Bytes(2, value);
      tensor.Bytes(13, entry.str());
    }
    tensor.Int(14, 1);  // EXTERNAL
  }
  Proto graph;
  graph.Bytes(5, tensor.str());  // GraphProto.initializer = 5
  initializers_ += graph.str();
}

uint64_t OnnxModelWriter::Finish() {
  if (data_.is_open()) {
    data_.close();
    if (!data_) throw RuntimeError("cannot write " + (model_path_.parent_path() / data_file_name_).string());
  }
  Proto graph_name;
  graph_name.Bytes(2, "main_graph");  // GraphProto.name = 2
  const std::string graph = nodes_ + graph_name.str() + initializers_ + inputs_ + outputs_;
  Proto model;  // ModelProto: ir_version = 1, producer_name = 2, producer_version = 3, graph = 7, opset_import = 8
  model.Int(1, 10);
  model.Bytes(2, "modelkit");
  model.Bytes(3, "0.1.0");
  model.Bytes(7, graph);
  const std::pair<const char*, int64_t> opsets[] = {{"", 21}, {"com.microsoft", 1}};
  for (const auto& [domain, version] : opsets) {
    Proto opset;  // OperatorSetIdProto: domain = 1, version = 2
    opset.Bytes(1, domain);
    opset.Int(2, version);
    model.Bytes(8, opset.str());
  }
  std::ofstream out(model_path_, std::ios::binary | std::ios::trunc);
  out.write(model.str().data(), static_cast<std::streamsize>(model.str().size()));
  out.close();
  if (!out) throw RuntimeError("cannot write " + model_path_.string());
  return model.str().size() + data_size_;
}

}  // namespace modelkit::builder
