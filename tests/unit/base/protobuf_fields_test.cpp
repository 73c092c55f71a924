#include "modelkit/base/protobuf_fields.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "modelkit/base/error.h"

namespace modelkit {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// ONNX files written by the onnx Python package (protobuf's own encoder) come back byte for byte, at every level.
TEST(ProtobufFieldsTest, OnnxModelsWrittenByProtobufRoundTripByteForByte) {
  for (const char* name : {"matmul_add.onnx", "gqa_with_past.onnx", "decoder_external.onnx"}) {
    const std::string model = ReadFile(std::string(MODELKIT_TEST_MODELS_DIR) + "/" + name);
    ASSERT_FALSE(model.empty()) << name;
    const ProtobufMessage fields = ParseProtobuf(model, name);
    EXPECT_EQ(SerializeProtobuf(fields), model) << name;
    const std::vector<std::string_view> graphs = BytesFields(fields, 7);  // ModelProto.graph
    ASSERT_EQ(graphs.size(), 1u) << name;
    const ProtobufMessage graph = ParseProtobuf(graphs.front(), name);
    EXPECT_EQ(SerializeProtobuf(graph), graphs.front()) << name;
    EXPECT_FALSE(BytesFields(graph, 1).empty()) << name << ": no nodes";  // GraphProto.node
  }
}

TEST(ProtobufFieldsTest, EncodesVarintsBytesAndFixedFieldsAsProtobufDoes) {
  // Bytes from protobuf's encoding documentation: field 1 = 150; field 2 = "testing".
  const std::string expected = std::string("\x08\x96\x01", 3) + std::string("\x12\x07testing", 9);
  const ProtobufMessage message = {ProtobufField::Varint(1, 150), ProtobufField::Bytes(2, "testing")};
  EXPECT_EQ(SerializeProtobuf(message), expected);
  const ProtobufMessage parsed = ParseProtobuf(expected, "example");
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].number_value, 150u);
  EXPECT_EQ(parsed[1].bytes, "testing");
  const std::string fixed = std::string("\x0d\x01\x00\x00\x00\x11\x02\x00\x00\x00\x00\x00\x00\x00", 14);
  const ProtobufMessage fixed_fields = ParseProtobuf(fixed, "fixed");
  ASSERT_EQ(fixed_fields.size(), 2u);
  EXPECT_EQ(fixed_fields[0].type, WireType::kFixed32);
  EXPECT_EQ(fixed_fields[1].number_value, 2u);
  EXPECT_EQ(SerializeProtobuf(fixed_fields), fixed);
}

TEST(ProtobufFieldsTest, MalformedMessagesFailNamingWhatAndWhere) {
  const auto error_of = [](const std::string& bytes) {
    try {
      ParseProtobuf(bytes, "model.onnx");
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::kInvalidModel);
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(std::string("\x12\x09testing", 9)),
            "model.onnx is not a valid protobuf message: a length-delimited field runs past the end (byte 2)");
  EXPECT_EQ(error_of("\x08"), "model.onnx is not a valid protobuf message: a varint runs past the end (byte 1)");
  EXPECT_EQ(error_of(std::string("\x0b", 1)),
            "model.onnx is not a valid protobuf message: wire type 3 is not supported (byte 1)");
  EXPECT_EQ(error_of(std::string("\x00\x01", 2)),
            "model.onnx is not a valid protobuf message: field number 0 or out of range (byte 1)");
  EXPECT_EQ(error_of(std::string("\x0d\x01", 2)),
            "model.onnx is not a valid protobuf message: a fixed-size field runs past the end (byte 1)");
}

}  // namespace
}  // namespace modelkit
