// The Hugging Face tokenizer files a bundle carries: which to copy, the vocabulary size they imply and the special
// token ids tokenizer_config.json names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace modelkit::builder {

struct TokenizerInfo {
  std::vector<std::filesystem::path> files;  // existing tokenizer files to copy
  int64_t vocab_size = 0;                    // 1 + the largest id of tokenizer.json (0 without tokenizer.json)
  std::optional<int64_t> bos_token_id;
  std::optional<int64_t> eos_token_id;
  std::optional<int64_t> pad_token_id;
};

// Looks at the tokenizer files in `dir`. With `required`, a missing tokenizer.json is an error. Throws
// Error(kInvalidModel) naming the file for unparsable JSON.
TokenizerInfo InspectTokenizer(const std::filesystem::path& dir, bool required);

}  // namespace modelkit::builder
