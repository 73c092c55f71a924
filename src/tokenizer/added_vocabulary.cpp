#include "added_vocabulary.h"

#include <utf8proc.h>

#include "pattern.h"
#include "utf8.h"

namespace modelkit::tokenizer {
namespace {

bool IsWordChar(char32_t c) {
  if (c == '_') return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

size_t PreviousCharStart(std::string_view text, size_t pos) {
  size_t start = pos - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return start;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher() : nodes_(1) { root_children_.fill(-1); }

int32_t AddedTokenMatcher::Child(int32_t node, unsigned char byte) const {
  if (node == 0) return root_children_[byte];
  for (const auto& [b, child] : nodes_[static_cast<size_t>(node)].children) {
    if (b == byte) return child;
  }
  return -1;
}

void AddedTokenMatcher::Add(std::string_view key, const AddedToken* token) {
  if (key.empty()) return;
  int32_t node = 0;
  for (const char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    int32_t next = Child(node, byte);
    if (next < 0) {
      next = static_cast<int32_t>(nodes_.size());
      nodes_.emplace_back();
      if (node == 0) {
        root_children_[byte] = next;
      } else {
        nodes_[static_cast<size_t>(node)].children.emplace_back(byte, next);
      }
    }
    node = next;
  }
  // The first entry of a content wins, as a later duplicate cannot be told apart in text.
  if (nodes_[static_cast<size_t>(node)].token == nullptr) {
    nodes_[static_cast<size_t>(node)].token = token;
    ++count_;
  }
}

std::pair<const AddedToken*, size_t> AddedTokenMatcher::LongestAt(std::string_view text, size_t pos) const {
  const AddedToken* best = nullptr;
  size_t best_end = pos;
  int32_t node = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    node = Child(node, static_cast<unsigned char>(text[i]));
    if (node < 0) break;
    if (const AddedToken* token = nodes_[static_cast<size_t>(node)].token) {
      best = token;
      best_end = i + 1;
    }
  }
  return {best, best_end};
}

void AddedTokenMatcher::Split(std::string_view text, std::vector<TextSegment>& out) const {
  size_t plain_begin = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    if (root_children_[static_cast<unsigned char>(text[pos])] < 0) {
      ++pos;
      continue;
    }
    auto [token, end] = LongestAt(text, pos);
    if (token == nullptr) {
      ++pos;
      continue;
    }
    if (token->single_word) {
      const bool starts_word = pos > 0 && IsWordChar(DecodeCodepoint(text, PreviousCharStart(text, pos)));
      const bool ends_word = end < text.size() && IsWordChar(DecodeCodepoint(text, end));
      if (starts_word || ends_word) {
        pos += Utf8CharLength(static_cast<unsigned char>(text[pos]));
        continue;
      }
    }
    size_t begin = pos;
    if (token->lstrip) {
      while (begin > plain_begin) {
        const size_t previous = PreviousCharStart(text, begin);
        if (!IsUnicodeWhitespace(DecodeCodepoint(text, previous))) break;
        begin = previous;
      }
    }
    if (token->rstrip) {
      while (end < text.size() && IsUnicodeWhitespace(DecodeCodepoint(text, end))) {
        end += Utf8CharLength(static_cast<unsigned char>(text[end]));
      }
    }
    if (begin > plain_begin) out.push_back({plain_begin, begin, nullptr});
    out.push_back({begin, end, token});
    plain_begin = pos = end;
  }
  if (plain_begin < text.size()) out.push_back({plain_begin, text.size(), nullptr});
}

}  // namespace modelkit::tokenizer
