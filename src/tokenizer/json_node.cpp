#include "json_node.h"

#include "modelkit/base/error.h"

namespace modelkit::tokenizer {

bool JsonNode::Has(std::string_view key) const {
  if (!value_->is_object()) return false;
  const auto it = value_->find(key);
  return it != value_->end() && !it->is_null();
}

JsonNode JsonNode::Child(std::string_view key) const {
  if (!value_->is_object()) Fail("expected an object");
  const auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) Fail("missing required member '" + std::string(key) + "'");
  return JsonNode(*it, *file_, path_ + "." + std::string(key));
}

std::optional<JsonNode> JsonNode::Optional(std::string_view key) const {
  if (!Has(key)) return std::nullopt;
  return JsonNode(*value_->find(key), *file_, path_ + "." + std::string(key));
}

std::vector<JsonNode> JsonNode::Elements() const {
  if (!value_->is_array()) Fail("expected an array");
  std::vector<JsonNode> elements;
  elements.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) {
    elements.emplace_back((*value_)[i], *file_, path_ + "[" + std::to_string(i) + "]");
  }
  return elements;
}

std::string JsonNode::AsString() const {
  if (!value_->is_string()) Fail("expected a string");
  return value_->get<std::string>();
}

int64_t JsonNode::AsInt() const {
  if (!value_->is_number_integer()) Fail("expected an integer");
  return value_->get<int64_t>();
}

bool JsonNode::AsBool() const {
  if (!value_->is_boolean()) Fail("expected true or false");
  return value_->get<bool>();
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
  throw Error(ExitCode::kInvalidModel, "invalid tokenizer file " + *file_ + " at " + path_ + ": " + message);
}

nlohmann::json ParseJsonDocument(std::string_view text, const std::string& file) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ExitCode::kInvalidModel, "invalid tokenizer file " + file + ": malformed JSON at byte " +
                                             std::to_string(e.byte) + " (" + e.what() + ")");
  }
}

}  // namespace modelkit::tokenizer
