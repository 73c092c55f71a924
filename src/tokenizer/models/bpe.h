// Byte-pair encoding as Hugging Face's `tokenizers` BPE model: byte-level vocabularies (GPT-2, Llama 3, Qwen) and
// SentencePiece-style ones (byte_fallback, fuse_unk, unk_token), with ignore_merges, continuing_subword_prefix and
// end_of_word_suffix.
#pragma once

#include <array>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model.h"

namespace modelkit::tokenizer {

// Heterogeneous lookup: find string_view keys without building a std::string.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using TokenIds = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

class BpeModel : public Model {
 public:
  explicit BpeModel(const JsonNode& config);

  void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const override;
  std::optional<int32_t> TokenToId(std::string_view token) const override;
  const std::vector<std::string>& Vocabulary() const override { return vocabulary_; }

 private:
  struct Merge {
    int32_t rank;
    int32_t new_id;
  };
  static uint64_t PairKey(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  void LoadMerges(const JsonNode& merges);
  void MergeWord(std::string_view piece, std::vector<int32_t>& ids) const;

  TokenIds token_ids_;
  std::vector<std::string> vocabulary_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::optional<int32_t> unk_id_;
  std::string unk_token_;
  std::string continuing_subword_prefix_;
  std::string end_of_word_suffix_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::array<int32_t, 256> byte_ids_{};  // <0xXX> token ids, -1 where missing

  // Results for short pieces: natural text repeats the same words over and over.
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> cache_;
};

}  // namespace modelkit::tokenizer
