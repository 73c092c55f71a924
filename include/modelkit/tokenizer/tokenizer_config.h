// What tokenizer_config.json (with special_tokens_map.json and generation_config.json where present) says about
// special tokens and decoding, for the generator and the chat template.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace modelkit::tokenizer {

struct TokenizerConfig {
  std::optional<std::string> bos_token;
  std::optional<std::string> eos_token;
  std::optional<std::string> pad_token;
  std::optional<std::string> unk_token;
  std::optional<int32_t> bos_token_id;
  std::optional<int32_t> eos_token_id;
  std::optional<int32_t> pad_token_id;
  std::optional<int32_t> unk_token_id;
  // Every id that ends generation: generation_config.json's eos_token_id (one id or a list), else eos_token_id.
  std::vector<int32_t> eos_token_ids;
  // The flags as written. Encode() follows tokenizer.json's post-processor, as the Hugging Face `tokenizers`
  // library does; a caller that wants transformers' Python behaviour for Llama-class tokenizers reads these.
  bool add_bos_token = false;
  bool add_eos_token = false;
  bool clean_up_tokenization_spaces = false;
  std::vector<std::string> additional_special_tokens;
  std::optional<std::string> chat_template;
  std::optional<std::string> tokenizer_class;
};

}  // namespace modelkit::tokenizer
