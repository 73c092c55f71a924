// Added tokens (tokenizer.json "added_tokens"): found in the text before normalization and pre-tokenization, with
// their flags (special, single_word, lstrip, rstrip, normalized), leftmost-longest as in Hugging Face.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace modelkit::tokenizer {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
};

// A byte range of the text that is either plain text (token == nullptr) or one added token; an lstrip/rstrip
// token's range includes the whitespace it swallowed.
struct TextSegment {
  size_t begin = 0;
  size_t end = 0;
  const AddedToken* token = nullptr;
};

// Finds a set of added tokens in text. `key` is what is searched for (the content, or its normalized form).
class AddedTokenMatcher {
 public:
  AddedTokenMatcher();
  void Add(std::string_view key, const AddedToken* token);
  bool empty() const { return count_ == 0; }

  // Cuts `text` (valid UTF-8) into segments covering it completely, in order; empty plain segments are left out.
  void Split(std::string_view text, std::vector<TextSegment>& out) const;

 private:
  struct Node {
    std::vector<std::pair<unsigned char, int32_t>> children;
    const AddedToken* token = nullptr;
  };
  int32_t Child(int32_t node, unsigned char byte) const;
  // Longest token starting at `pos`, with its end; {nullptr, pos} when none.
  std::pair<const AddedToken*, size_t> LongestAt(std::string_view text, size_t pos) const;

  std::vector<Node> nodes_;
  std::array<int32_t, 256> root_children_;
  size_t count_ = 0;
};

}  // namespace modelkit::tokenizer
