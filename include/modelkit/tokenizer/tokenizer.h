// A Hugging Face tokenizer loaded from tokenizer.json (+ tokenizer_config.json): encodes text to token ids and
// decodes ids back to text exactly as the Hugging Face `tokenizers` library does for the same file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelkit/tokenizer/tokenizer_config.h"

namespace modelkit::tokenizer {

struct DecodeOptions {
  // Leave out tokens whose added-token entry says special (and tokenizer_config's additional_special_tokens).
  bool skip_special_tokens = false;
  // transformers' clean-up of " ." / " n't" / ...; unset means tokenizer_config.json's clean_up_tokenization_spaces.
  std::optional<bool> clean_up_tokenization_spaces;
};

// A byte range [begin, end) of the UTF-8 input text (byte offsets, not character offsets as in Python's HF).
struct TokenOffset {
  size_t begin = 0;
  size_t end = 0;
  bool operator==(const TokenOffset&) const = default;
};

// Token ids with, for each, the byte range of the original input it came from. Tokens the post-processor adds
// (e.g. BOS) get {0, 0}. See docs/tokenizer.md "Offsets" for how normalization is mapped back.
struct Encoding {
  std::vector<int32_t> ids;
  std::vector<TokenOffset> offsets;
};

class Tokenizer {
 public:
  // Loads `directory`/tokenizer.json and, when present, tokenizer_config.json, special_tokens_map.json (fills
  // special tokens the config lacks) and generation_config.json (bos/eos ids) from the same directory.
  // Throws UsageError when the directory or tokenizer.json is missing, and Error(kInvalidModel) naming the file and
  // the JSON path for malformed JSON or an unsupported model/normalizer/pre-tokenizer/post-processor/decoder type.
  static Tokenizer Load(const std::filesystem::path& directory);

  // Builds a tokenizer from the documents' text (all but `tokenizer_json` may be empty). `source` names the
  // tokenizer.json in error messages, `config_source` the tokenizer_config.json; the other two files are named as
  // its siblings.
  static Tokenizer FromJson(std::string_view tokenizer_json, std::string_view config_json, const std::string& source,
                            const std::string& config_source = "tokenizer_config.json",
                            std::string_view special_tokens_map_json = {},
                            std::string_view generation_config_json = {});

  // Token ids of `text` (UTF-8). With `add_special_tokens` the post-processor's special tokens (e.g. BOS) are added.
  // Throws UsageError when `text` is not valid UTF-8 (naming the byte offset).
  std::vector<int32_t> Encode(std::string_view text, bool add_special_tokens = false) const;
  // The same ids as Encode, with byte offsets into `text` (slower than Encode; Encode is unchanged).
  Encoding EncodeWithOffsets(std::string_view text, bool add_special_tokens = false) const;

  // Text of `ids`. Throws UsageError for an id outside the vocabulary. Invalid byte sequences become U+FFFD.
  std::string Decode(std::span<const int32_t> ids, const DecodeOptions& options = {}) const;

  // The vocabulary entry of `id` (model vocabulary or added token); nullopt when out of range.
  std::optional<std::string_view> IdToToken(int32_t id) const;
  // The id of an exact vocabulary entry or added token.
  std::optional<int32_t> TokenToId(std::string_view token) const;
  // True for added tokens flagged special (and tokenizer_config's additional_special_tokens).
  bool IsSpecial(int32_t id) const;
  // One past the largest id (model vocabulary and added tokens).
  size_t VocabSize() const;

  const TokenizerConfig& config() const;

  struct Impl;

 private:
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace modelkit::tokenizer
