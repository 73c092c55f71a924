#include "json_node.h"

#include "modelkit/base/error.h"

namespace modelkit::tokenizer {

std::string JsonNode::Path() const { return index_ ? *base_ + "[" + std::to_string(*index_) + "]" : *base_; }

bool JsonNode::Has(std::string_view key) const {
  if (!value_.is_object()) return false;
  const simdjson::dom::object object = value_.get_object().value_unsafe();
  simdjson::dom::element member;
  return object.at_key(key).get(member) == simdjson::SUCCESS && !member.is_null();
}

JsonNode JsonNode::Child(std::string_view key) const {
  if (!value_.is_object()) Fail("expected an object");
  const simdjson::dom::object object = value_.get_object().value_unsafe();
  simdjson::dom::element member;
  if (object.at_key(key).get(member) != simdjson::SUCCESS || member.is_null()) {
    Fail("missing required member '" + std::string(key) + "'");
  }
  return JsonNode(member, *file_, Path() + "." + std::string(key));
}

std::optional<JsonNode> JsonNode::Optional(std::string_view key) const {
  if (!Has(key)) return std::nullopt;
  return Child(key);
}

std::vector<JsonNode> JsonNode::Elements() const {
  std::vector<JsonNode> elements;
  ForEachElement([&](size_t, const JsonNode& element) { elements.push_back(element); });
  return elements;
}

void JsonNode::ForEachElement(const std::function<void(size_t, const JsonNode&)>& visit) const {
  if (!value_.is_array()) Fail("expected an array");
  const auto base = std::make_shared<const std::string>(Path());
  size_t index = 0;
  const simdjson::dom::array array = value_.get_array().value_unsafe();
  for (const simdjson::dom::element element : array) {
    visit(index, JsonNode(element, file_, base, index));
    ++index;
  }
}

void JsonNode::ForEachMember(const std::function<void(std::string_view, const JsonNode&)>& visit) const {
  if (!value_.is_object()) Fail("expected an object");
  const std::string path = Path();
  const simdjson::dom::object object = value_.get_object().value_unsafe();
  for (const simdjson::dom::key_value_pair member : object) {
    visit(member.key, JsonNode(member.value, *file_, path + "." + std::string(member.key)));
  }
}

size_t JsonNode::Size() const {
  if (value_.is_array()) {
    const simdjson::dom::array array = value_.get_array().value_unsafe();
    return array.size();
  }
  if (value_.is_object()) {
    const simdjson::dom::object object = value_.get_object().value_unsafe();
    return object.size();
  }
  return 0;
}

std::string_view JsonNode::AsStringView() const {
  std::string_view text;
  if (value_.get_string().get(text) != simdjson::SUCCESS) Fail("expected a string");
  return text;
}

int64_t JsonNode::AsInt() const {
  int64_t number = 0;
  if (value_.get_int64().get(number) != simdjson::SUCCESS) Fail("expected an integer");
  return number;
}

bool JsonNode::AsBool() const {
  bool flag = false;
  if (value_.get_bool().get(flag) != simdjson::SUCCESS) Fail("expected true or false");
  return flag;
}

std::string JsonNode::StringOr(std::string_view key, const std::string& fallback) const {
  const auto child = Optional(key);
  return child ? child->AsString() : fallback;
}

int64_t JsonNode::IntOr(std::string_view key, int64_t fallback) const {
  const auto child = Optional(key);
  return child ? child->AsInt() : fallback;
}

bool JsonNode::BoolOr(std::string_view key, bool fallback) const {
  const auto child = Optional(key);
  return child ? child->AsBool() : fallback;
}

void JsonNode::Fail(const std::string& message) const {
  throw Error(ExitCode::kInvalidModel, "invalid tokenizer file " + *file_ + " at " + Path() + ": " + message);
}

JsonDocument::JsonDocument(std::string_view text, const std::string& file)
    : file_(file), parser_(std::make_unique<simdjson::dom::parser>()) {
  const simdjson::error_code error = parser_->parse(text.data(), text.size()).get(root_);
  if (error != simdjson::SUCCESS) {
    throw Error(ExitCode::kInvalidModel,
                "invalid tokenizer file " + file + ": malformed JSON (" + simdjson::error_message(error) + ")");
  }
}

}  // namespace modelkit::tokenizer
