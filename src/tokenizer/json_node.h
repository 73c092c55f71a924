// Path-aware reading of tokenizer.json / tokenizer_config.json: every failure names the file and the JSON path
// (e.g. "$.pre_tokenizer.pretokenizers[1].type") and maps to ExitCode::kInvalidModel.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelkit::tokenizer {

class JsonNode {
 public:
  JsonNode(const nlohmann::json& value, const std::string& file, std::string path)
      : value_(&value), file_(&file), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }

  // Present and not null.
  bool Has(std::string_view key) const;
  // A required member (must be present and not null).
  JsonNode Child(std::string_view key) const;
  // An optional member: nullopt when absent or null.
  std::optional<JsonNode> Optional(std::string_view key) const;
  // Elements of an array (throws when this is not an array).
  std::vector<JsonNode> Elements() const;

  std::string AsString() const;
  int64_t AsInt() const;
  bool AsBool() const;

  std::string String(std::string_view key) const { return Child(key).AsString(); }
  std::string StringOr(std::string_view key, const std::string& fallback) const;
  int64_t Int(std::string_view key) const { return Child(key).AsInt(); }
  int64_t IntOr(std::string_view key, int64_t fallback) const;
  bool BoolOr(std::string_view key, bool fallback) const;

  // The "type" member, for factories.
  std::string Type() const { return String("type"); }

  // Throws Error(kInvalidModel): "<file>: at <path>: <message>".
  [[noreturn]] void Fail(const std::string& message) const;

 private:
  const nlohmann::json* value_;
  const std::string* file_;
  std::string path_;
};

// Parses `text`; a syntax error throws Error(kInvalidModel) naming `file` and the byte offset.
nlohmann::json ParseJsonDocument(std::string_view text, const std::string& file);

}  // namespace modelkit::tokenizer
