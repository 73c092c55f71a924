#include "modelkit/base/protobuf_fields.h"

#include <cstring>

#include "modelkit/base/error.h"

namespace modelkit {
namespace {

class Reader {
 public:
  Reader(std::string_view data, const std::string& what) : data_(data), what_(what) {}

  bool AtEnd() const { return pos_ == data_.size(); }

  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (AtEnd()) Fail("a varint runs past the end");
      const auto byte = static_cast<uint8_t>(data_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    Fail("a varint is longer than 10 bytes");
  }

  uint64_t Fixed(size_t size) {
    if (data_.size() - pos_ < size) Fail("a fixed-size field runs past the end");
    uint64_t value = 0;
    std::memcpy(&value, data_.data() + pos_, size);  // little-endian host, as protobuf's encoding
    pos_ += size;
    return value;
  }

  std::string_view Bytes() {
    const uint64_t size = Varint();
    if (size > data_.size() - pos_) Fail("a length-delimited field runs past the end");
    const std::string_view bytes = data_.substr(pos_, size);
    pos_ += size;
    return bytes;
  }

  [[noreturn]] void Fail(const std::string& why) const {
    throw Error(ExitCode::kInvalidModel,
                what_ + " is not a valid protobuf message: " + why + " (byte " + std::to_string(pos_) + ")");
  }

 private:
  std::string_view data_;
  const std::string& what_;
  size_t pos_ = 0;
};

void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void AppendKey(std::string& out, uint32_t number, WireType type) {
  AppendVarint(out, (static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(type));
}

void AppendFixed(std::string& out, uint64_t value, size_t size) {
  char bytes[8];
  std::memcpy(bytes, &value, sizeof(bytes));
  out.append(bytes, size);
}

}  // namespace

ProtobufField ProtobufField::Varint(uint32_t number, uint64_t value) { return {number, WireType::kVarint, value, {}}; }

ProtobufField ProtobufField::Bytes(uint32_t number, std::string value) {
  return {number, WireType::kLengthDelimited, 0, std::move(value)};
}

ProtobufMessage ParseProtobuf(std::string_view message, const std::string& what) {
  Reader reader(message, what);
  ProtobufMessage fields;
  while (!reader.AtEnd()) {
    const uint64_t key = reader.Varint();
    ProtobufField field;
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff) reader.Fail("field number 0 or out of range");
    field.number = static_cast<uint32_t>(key >> 3);
    switch (key & 7) {
      case 0:
        field.type = WireType::kVarint;
        field.number_value = reader.Varint();
        break;
      case 1:
        field.type = WireType::kFixed64;
        field.number_value = reader.Fixed(8);
        break;
      case 2:
        field.type = WireType::kLengthDelimited;
        field.bytes = std::string(reader.Bytes());
        break;
      case 5:
        field.type = WireType::kFixed32;
        field.number_value = reader.Fixed(4);
        break;
      default:
        reader.Fail("wire type " + std::to_string(key & 7) + " is not supported");
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

std::string SerializeProtobuf(const ProtobufMessage& message) {
  std::string out;
  for (const ProtobufField& field : message) {
    switch (field.type) {
      case WireType::kVarint:
        AppendProtobufVarint(out, field.number, field.number_value);
        break;
      case WireType::kFixed64:
        AppendKey(out, field.number, WireType::kFixed64);
        AppendFixed(out, field.number_value, 8);
        break;
      case WireType::kFixed32:
        AppendProtobufFixed32(out, field.number, static_cast<uint32_t>(field.number_value));
        break;
      case WireType::kLengthDelimited:
        AppendProtobufBytes(out, field.number, field.bytes);
        break;
    }
  }
  return out;
}

void AppendProtobufVarint(std::string& out, uint32_t number, uint64_t value) {
  AppendKey(out, number, WireType::kVarint);
  AppendVarint(out, value);
}

void AppendProtobufBytes(std::string& out, uint32_t number, std::string_view value) {
  AppendKey(out, number, WireType::kLengthDelimited);
  AppendVarint(out, value.size());
  out += value;
}

void AppendProtobufFixed32(std::string& out, uint32_t number, uint32_t value) {
  AppendKey(out, number, WireType::kFixed32);
  AppendFixed(out, value, 4);
}

std::vector<std::string_view> BytesFields(const ProtobufMessage& message, uint32_t number) {
  std::vector<std::string_view> values;
  for (const ProtobufField& field : message) {
    if (field.number == number && field.type == WireType::kLengthDelimited) values.push_back(field.bytes);
  }
  return values;
}

}  // namespace modelkit
