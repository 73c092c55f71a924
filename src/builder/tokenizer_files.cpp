#include "tokenizer_files.h"

#include <map>
#include <nlohmann/json.hpp>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"

namespace modelkit::builder {
namespace {

constexpr const char* kTokenizerFiles[] = {
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",   "vocab.json",
    "merges.txt",     "tokenizer.model",       "generation_config.json",  "chat_template.jinja", "chat_template.json"};

nlohmann::json ParseJsonFile(const std::filesystem::path& path) {
  nlohmann::json doc = nlohmann::json::parse(ReadTextFile(path, "tokenizer file"), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw Error(ExitCode::kInvalidModel, path.string() + " is not a JSON object");
  }
  return doc;
}

// A special token in tokenizer_config.json: a string, or an object with "content".
std::optional<std::string> TokenContent(const nlohmann::json& config, const char* key) {
  const auto it = config.find(key);
  if (it == config.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string())
    return (*it)["content"].get<std::string>();
  return std::nullopt;
}

}  // namespace

TokenizerInfo InspectTokenizer(const std::filesystem::path& dir, bool required) {
  TokenizerInfo info;
  for (const char* name : kTokenizerFiles) {
    if (std::filesystem::is_regular_file(dir / name)) info.files.push_back(dir / name);
  }
  const std::filesystem::path tokenizer_json = dir / "tokenizer.json";
  if (!std::filesystem::is_regular_file(tokenizer_json)) {
    if (required)
      throw Error(ExitCode::kInvalidModel, "tokenizer directory " + dir.string() + " has no tokenizer.json");
    return info;
  }
  const nlohmann::json tokenizer = ParseJsonFile(tokenizer_json);
  std::map<std::string, int64_t> ids;
  int64_t max_id = -1;
  if (const auto model = tokenizer.find("model"); model != tokenizer.end() && model->is_object()) {
    if (const auto vocab = model->find("vocab"); vocab != model->end()) {
      if (vocab->is_object()) {
        for (const auto& [token, id] : vocab->items()) {
          if (!id.is_number_integer()) continue;
          ids[token] = id.get<int64_t>();
          max_id = std::max(max_id, id.get<int64_t>());
        }
      } else if (vocab->is_array()) {  // Unigram: [[piece, score], ...]
        max_id = static_cast<int64_t>(vocab->size()) - 1;
      }
    }
  }
  if (const auto added = tokenizer.find("added_tokens"); added != tokenizer.end() && added->is_array()) {
    for (const auto& token : *added) {
      if (!token.is_object() || !token.contains("id") || !token["id"].is_number_integer()) continue;
      const int64_t id = token["id"].get<int64_t>();
      if (token.contains("content") && token["content"].is_string()) ids[token["content"].get<std::string>()] = id;
      max_id = std::max(max_id, id);
    }
  }
  if (max_id < 0) throw Error(ExitCode::kInvalidModel, tokenizer_json.string() + " has no vocabulary");
  info.vocab_size = max_id + 1;
  if (std::filesystem::is_regular_file(dir / "tokenizer_config.json")) {
    const nlohmann::json config = ParseJsonFile(dir / "tokenizer_config.json");
    const auto lookup = [&](const char* key) -> std::optional<int64_t> {
      const auto content = TokenContent(config, key);
      if (!content) return std::nullopt;
      const auto it = ids.find(*content);
      if (it == ids.end()) return std::nullopt;
      return it->second;
    };
    info.bos_token_id = lookup("bos_token");
    info.eos_token_id = lookup("eos_token");
    info.pad_token_id = lookup("pad_token");
  }
  return info;
}

}  // namespace modelkit::builder
