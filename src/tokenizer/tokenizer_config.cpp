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

}  // namespace

TokenizerConfig ParseTokenizerConfig(std::string_view config_json, const std::string& source,
                                     const Tokenizer& tokenizer) {
  TokenizerConfig config;
  if (config_json.empty()) return config;
  // nlohmann first: configs hold numbers simdjson rejects (llama3's model_max_length is 1e30 written as an
  // integer); re-serialised, such numbers become doubles. The file is small.
  std::string normalized;
  try {
    normalized = nlohmann::json::parse(config_json.begin(), config_json.end()).dump();
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ExitCode::kInvalidModel,
                "invalid tokenizer file " + source + ": malformed JSON at byte " + std::to_string(e.byte));
  }
  const JsonDocument document(normalized, source);
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
