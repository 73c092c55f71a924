// A protobuf message as the list of its fields, for editing a message whose schema is known only in part.
//
// Parsing keeps every field, known or not, with its payload as it was encoded, and serialising writes them back in
// order: a message parsed and serialised unchanged comes back byte for byte. A nested message is a length-delimited
// field whose payload is parsed the same way. Groups (wire types 3 and 4, deprecated) are not supported.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace modelkit {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct ProtobufField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t number_value = 0;  // kVarint, kFixed64 and kFixed32 payloads
  std::string bytes;          // kLengthDelimited payload: a string, bytes, a packed array or a nested message

  static ProtobufField Varint(uint32_t number, uint64_t value);
  static ProtobufField Bytes(uint32_t number, std::string value);
};

using ProtobufMessage = std::vector<ProtobufField>;

// Throws Error(kInvalidModel) naming `what` when `message` is not a well-formed protobuf encoding.
ProtobufMessage ParseProtobuf(std::string_view message, const std::string& what);

std::string SerializeProtobuf(const ProtobufMessage& message);

// The length-delimited payloads of field `number`, in order (a repeated string or message field).
std::vector<std::string_view> BytesFields(const ProtobufMessage& message, uint32_t number);

// One field appended to `out` in the wire format, for writers that encode a message as they build it.
void AppendProtobufVarint(std::string& out, uint32_t number, uint64_t value);
void AppendProtobufBytes(std::string& out, uint32_t number, std::string_view value);
void AppendProtobufFixed32(std::string& out, uint32_t number, uint32_t value);

}  // namespace modelkit
