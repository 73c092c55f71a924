// tokenizer_config.json: special token names (plain strings or AddedToken objects), flags and the chat template.
#include <nlohmann/json.hpp>

#include "json_node.h"
#include "modelkit/base/error.h"
#include "tokenizer_impl.h"

namespace modelkit::tokenizer {
namespace {

std::optional<std::string> TokenName(const JsonNode& config, std::string_view key) {
  const auto node = config.Optional(key);
  if (!node) return std::nullopt;
  if (node->IsString()) return node->AsString();
  if (node->IsObject()) return node->String("content");
  node->Fail("expected a token string or an object with 'content'");
}

// nlohmann first: configs hold numbers simdjson rejects (llama3's model_max_length is 1e30 written as an integer);
// re-serialised, such numbers become doubles. These files are small.
JsonDocument ParseSmallDocument(std::string_view text, const std::string& source) {
  std::string normalized;
  try {
    normalized = nlohmann::json::parse(text.begin(), text.end()).dump();
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ExitCode::kInvalidModel,
                "invalid tokenizer file " + source + ": malformed JSON at byte " + std::to_string(e.byte));
  }
  return JsonDocument(normalized, source);
}

void AddId(const JsonNode& node, std::vector<int32_t>& ids) {
  const int64_t id = node.AsInt();
  if (id < 0 || id > INT32_MAX) node.Fail("token id out of range");
  ids.push_back(static_cast<int32_t>(id));
}

}  // namespace

void ApplyCompanionFiles(std::string_view special_tokens_map_json, const std::string& map_source,
                         std::string_view generation_config_json, const std::string& generation_source,
                         const Tokenizer& tokenizer, TokenizerConfig& config) {
  if (!special_tokens_map_json.empty()) {
    const JsonDocument document = ParseSmallDocument(special_tokens_map_json, map_source);
    const JsonNode root = document.Root();
    if (!root.IsObject()) root.Fail("expected an object");
    const auto fill = [&](std::optional<std::string>& name, std::optional<int32_t>& id, std::string_view key) {
      if (name) return;
      name = TokenName(root, key);
      if (name) id = tokenizer.TokenToId(*name);
    };
    fill(config.bos_token, config.bos_token_id, "bos_token");
    fill(config.eos_token, config.eos_token_id, "eos_token");
    fill(config.pad_token, config.pad_token_id, "pad_token");
    fill(config.unk_token, config.unk_token_id, "unk_token");
    if (config.additional_special_tokens.empty()) {
      if (const auto extra = root.Optional("additional_special_tokens")) {
        for (const JsonNode& entry : extra->Elements()) {
          config.additional_special_tokens.push_back(entry.IsString() ? entry.AsString() : entry.String("content"));
        }
      }
    }
  }
  if (!generation_config_json.empty()) {
    const JsonDocument document = ParseSmallDocument(generation_config_json, generation_source);
    const JsonNode root = document.Root();
    if (!root.IsObject()) root.Fail("expected an object");
    if (const auto bos = root.Optional("bos_token_id"); bos && !config.bos_token_id) {
      std::vector<int32_t> ids;
      AddId(*bos, ids);
      config.bos_token_id = ids.front();
    }
    if (const auto eos = root.Optional("eos_token_id")) {
      config.eos_token_ids.clear();
      if (eos->IsArray()) {
        for (const JsonNode& id : eos->Elements()) AddId(id, config.eos_token_ids);
      } else {
        AddId(*eos, config.eos_token_ids);
      }
    }
  }
  if (config.eos_token_ids.empty() && config.eos_token_id) config.eos_token_ids.push_back(*config.eos_token_id);
}

TokenizerConfig ParseTokenizerConfig(std::string_view config_json, const std::string& source,
                                     const Tokenizer& tokenizer) {
  TokenizerConfig config;
  if (config_json.empty()) return config;
  const JsonDocument document = ParseSmallDocument(config_json, source);
  const JsonNode root = document.Root();
  if (!root.IsObject()) root.Fail("expected an object");
  config.bos_token = TokenName(root, "bos_token");
  config.eos_token = TokenName(root, "eos_token");
  config.pad_token = TokenName(root, "pad_token");
  config.unk_token = TokenName(root, "unk_token");
  const auto id_of = [&](const std::optional<std::string>& name) -> std::optional<int32_t> {
    return name ? tokenizer.TokenToId(*name) : std::nullopt;
  };
  config.bos_token_id = id_of(config.bos_token);
  config.eos_token_id = id_of(config.eos_token);
  config.pad_token_id = id_of(config.pad_token);
  config.unk_token_id = id_of(config.unk_token);
  config.add_bos_token = root.BoolOr("add_bos_token", false);
  config.add_eos_token = root.BoolOr("add_eos_token", false);
  config.clean_up_tokenization_spaces = root.BoolOr("clean_up_tokenization_spaces", false);
  if (const auto extra = root.Optional("additional_special_tokens")) {
    for (const JsonNode& entry : extra->Elements()) {
      config.additional_special_tokens.push_back(entry.IsString() ? entry.AsString() : entry.String("content"));
    }
  }
  if (const auto tokenizer_class = root.Optional("tokenizer_class"))
    config.tokenizer_class = tokenizer_class->AsString();
  if (const auto chat_template = root.Optional("chat_template")) {
    if (chat_template->IsString()) {
      config.chat_template = chat_template->AsString();
    } else {
      // A list of named templates: the one named "default".
      for (const JsonNode& entry : chat_template->Elements()) {
        if (entry.String("name") == "default") config.chat_template = entry.String("template");
      }
    }
  }
  return config;
}

std::string CleanUpTokenizationSpaces(std::string text) {
  static const std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},     {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) {
    std::string out;
    out.reserve(text.size());
    size_t last = 0;
    for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, last)) {
      out.append(text, last, pos - last);
      out.append(to);
      last = pos + from.size();
    }
    out.append(text, last, std::string::npos);
    text = std::move(out);
  }
  return text;
}

}  // namespace modelkit::tokenizer
