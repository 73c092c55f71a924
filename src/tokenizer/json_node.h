// Path-aware reading of tokenizer.json / tokenizer_config.json (parsed with simdjson: the 33 MB gemma3 file loads in
// a fraction of the time a tree-building parser needs): every failure names the file and the JSON path
// (e.g. "$.pre_tokenizer.pretokenizers[1].type") and maps to ExitCode::kInvalidModel.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelkit::tokenizer {

class JsonNode {
 public:
  JsonNode(simdjson::dom::element value, const std::string& file, std::string path)
      : value_(value), file_(&file), base_(std::make_shared<const std::string>(std::move(path))) {}

  bool IsNull() const { return value_.is_null(); }
  bool IsObject() const { return value_.is_object(); }
  bool IsArray() const { return value_.is_array(); }
  bool IsString() const { return value_.is_string(); }
  std::string Path() const;

  // Present and not null.
  bool Has(std::string_view key) const;
  // A required member (must be present and not null).
  JsonNode Child(std::string_view key) const;
  // An optional member: nullopt when absent or null.
  std::optional<JsonNode> Optional(std::string_view key) const;
  // Elements of an array (throws when this is not an array).
  std::vector<JsonNode> Elements() const;
  // Calls `visit(index, element)` for each element of an array (throws when this is not an array). No allocation
  // per element: for the hundreds of thousands of merges.
  void ForEachElement(const std::function<void(size_t, const JsonNode&)>& visit) const;
  // Calls `visit(key, value)` for each member of an object (throws when this is not an object).
  void ForEachMember(const std::function<void(std::string_view, const JsonNode&)>& visit) const;
  size_t Size() const;

  std::string AsString() const { return std::string(AsStringView()); }
  std::string_view AsStringView() const;
  int64_t AsInt() const;
  bool AsBool() const;

  std::string String(std::string_view key) const { return Child(key).AsString(); }
  std::string StringOr(std::string_view key, const std::string& fallback) const;
  int64_t Int(std::string_view key) const { return Child(key).AsInt(); }
  int64_t IntOr(std::string_view key, int64_t fallback) const;
  bool BoolOr(std::string_view key, bool fallback) const;

  // The "type" member, for factories.
  std::string Type() const { return String("type"); }

  // Throws Error(kInvalidModel): "invalid tokenizer file <file> at <path>: <message>".
  [[noreturn]] void Fail(const std::string& message) const;

 private:
  JsonNode(simdjson::dom::element value, const std::string* file, std::shared_ptr<const std::string> base, size_t index)
      : value_(value), file_(file), base_(std::move(base)), index_(index) {}

  simdjson::dom::element value_;
  const std::string* file_;
  std::shared_ptr<const std::string> base_;  // the path, or the parent array's path when index_ is set
  std::optional<size_t> index_;
};

// A parsed document; its nodes stay valid while it lives.
class JsonDocument {
 public:
  // Parses `text`; a syntax error throws Error(kInvalidModel) naming `file`.
  JsonDocument(std::string_view text, const std::string& file);
  JsonNode Root() const { return JsonNode(root_, file_, "$"); }

 private:
  std::string file_;
  std::unique_ptr<simdjson::dom::parser> parser_;
  simdjson::dom::element root_;
};

}  // namespace modelkit::tokenizer
