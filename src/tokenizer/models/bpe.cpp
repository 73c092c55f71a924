#include "bpe.h"

#include <cstdint>
#include <cstdio>
#include <queue>

#include "../utf8.h"
#include "modelkit/base/error.h"

namespace modelkit::tokenizer {
namespace {

constexpr size_t kMaxCachedPieceBytes = 256;
constexpr size_t kCacheCapacity = 1 << 17;

std::string HexCodepoint(char32_t c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(c));
  return buffer;
}

}  // namespace

BpeModel::BpeModel(const JsonNode& config) {
  const JsonNode vocab = config.Child("vocab");
  if (!vocab.IsObject()) vocab.Fail("expected an object mapping tokens to ids");
  token_ids_.reserve(vocab.Size());
  vocabulary_.reserve(vocab.Size());
  vocab.ForEachMember([&](std::string_view token, const JsonNode& id_value) {
    const int64_t id = id_value.AsInt();
    if (id < 0 || id > INT32_MAX) id_value.Fail("token id out of range");
    if (id >= static_cast<int64_t>(vocab.Size()) + kMaxTokenIdGap) {
      id_value.Fail("token id " + std::to_string(id) + " is far past the vocabulary's " + std::to_string(vocab.Size()) +
                    " entries (ids must number the tokens from 0)");
    }
    token_ids_.emplace(std::string(token), static_cast<int32_t>(id));
    if (static_cast<size_t>(id) >= vocabulary_.size()) vocabulary_.resize(static_cast<size_t>(id) + 1);
    vocabulary_[static_cast<size_t>(id)] = token;
  });
  if (config.Has("unk_token")) {
    unk_token_ = config.String("unk_token");
    if (const auto it = token_ids_.find(unk_token_); it != token_ids_.end()) unk_id_ = it->second;
  }
  continuing_subword_prefix_ = config.StringOr("continuing_subword_prefix", "");
  end_of_word_suffix_ = config.StringOr("end_of_word_suffix", "");
  fuse_unk_ = config.BoolOr("fuse_unk", false);
  byte_fallback_ = config.BoolOr("byte_fallback", false);
  ignore_merges_ = config.BoolOr("ignore_merges", false);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    const auto it = token_ids_.find(std::string_view(name));
    byte_ids_[static_cast<size_t>(b)] = it == token_ids_.end() ? -1 : it->second;
  }
  LoadMerges(config.Child("merges"));
}

void BpeModel::LoadMerges(const JsonNode& merges) {
  if (!merges.IsArray()) merges.Fail("expected an array");
  merges_.reserve(merges.Size());
  std::string merged;
  merges.ForEachElement([&](size_t rank, const JsonNode& entry) {
    std::string_view left, right;
    if (entry.IsString()) {  // "left right" (tokenizers < 0.20)
      const std::string_view text = entry.AsStringView();
      const size_t space = text.find(' ');
      if (space == std::string_view::npos)
        entry.Fail("merge '" + std::string(text) + "' has no space between its parts");
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else if (entry.IsArray() && entry.Size() == 2) {
      const std::vector<JsonNode> parts = entry.Elements();
      left = parts[0].AsStringView();
      right = parts[1].AsStringView();
    } else {
      entry.Fail("expected \"left right\" or [\"left\", \"right\"]");
    }
    merged.assign(left);
    merged.append(right);
    const auto left_it = token_ids_.find(left);
    const auto right_it = token_ids_.find(right);
    const auto merged_it = token_ids_.find(merged);
    if (left_it == token_ids_.end() || right_it == token_ids_.end() || merged_it == token_ids_.end()) {
      entry.Fail("merge '" + std::string(left) + "' + '" + std::string(right) +
                 "' uses a token that is not in the vocabulary");
    }
    // The first occurrence of a pair wins, as in Hugging Face.
    merges_.emplace(PairKey(left_it->second, right_it->second), Merge{static_cast<int32_t>(rank), merged_it->second});
  });
}

std::optional<int32_t> BpeModel::TokenToId(std::string_view token) const {
  const auto it = token_ids_.find(token);
  if (it == token_ids_.end()) return std::nullopt;
  return it->second;
}

void BpeModel::Tokenize(std::string_view piece, std::vector<int32_t>& ids) const {
  if (ignore_merges_) {
    if (const auto it = token_ids_.find(piece); it != token_ids_.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  const bool cacheable = piece.size() <= kMaxCachedPieceBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (const auto it = cache_.find(piece); it != cache_.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t first = ids.size();
  MergeWord(piece, ids);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() >= kCacheCapacity) cache_.clear();
    cache_.emplace(std::string(piece), std::vector<int32_t>(ids.begin() + static_cast<ptrdiff_t>(first), ids.end()));
  }
}

void BpeModel::MergeWord(std::string_view piece, std::vector<int32_t>& ids) const {
  struct Symbol {
    int32_t id;
    int32_t prev;
    int32_t next;
    bool alive;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(piece.size());
  bool last_is_unk = false;
  const auto push = [&](int32_t id) {
    const auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({id, index - 1, -1, true});
  };
  std::string scratch;
  for (size_t pos = 0; pos < piece.size();) {
    const size_t length = Utf8CharLength(static_cast<unsigned char>(piece[pos]));
    std::string_view character = piece.substr(pos, length);
    const bool is_first = pos == 0;
    const bool is_last = pos + length >= piece.size();
    std::string_view lookup = character;
    if ((!is_first && !continuing_subword_prefix_.empty()) || (is_last && !end_of_word_suffix_.empty())) {
      scratch.assign(is_first ? "" : continuing_subword_prefix_);
      scratch.append(character);
      if (is_last) scratch.append(end_of_word_suffix_);
      lookup = scratch;
    }
    pos += length;
    if (const auto it = token_ids_.find(lookup); it != token_ids_.end()) {
      push(it->second);
      last_is_unk = false;
      continue;
    }
    if (byte_fallback_) {
      bool all_bytes = true;
      for (const char byte : character) all_bytes = all_bytes && byte_ids_[static_cast<uint8_t>(byte)] >= 0;
      if (all_bytes) {
        for (const char byte : character) push(byte_ids_[static_cast<uint8_t>(byte)]);
        last_is_unk = false;
        continue;
      }
    }
    if (!unk_id_) {
      throw UsageError("cannot encode character " + HexCodepoint(DecodeCodepoint(character, 0)) +
                       ": it is not in the tokenizer's vocabulary and the model has no unk_token");
    }
    if (!(fuse_unk_ && last_is_unk)) push(*unk_id_);
    last_is_unk = true;
  }
  if (!symbols.empty()) symbols.back().next = -1;
  for (size_t i = 0; i + 1 < symbols.size(); ++i) symbols[i].next = static_cast<int32_t>(i + 1);

  struct Candidate {
    int32_t rank;
    int32_t pos;
    int32_t new_id;
    int32_t right_id;
    bool operator>(const Candidate& other) const { return rank != other.rank ? rank > other.rank : pos > other.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  const auto consider = [&](int32_t left) {
    const int32_t right = symbols[static_cast<size_t>(left)].next;
    if (right < 0) return;
    const auto it =
        merges_.find(PairKey(symbols[static_cast<size_t>(left)].id, symbols[static_cast<size_t>(right)].id));
    if (it != merges_.end()) {
      queue.push({it->second.rank, left, it->second.new_id, symbols[static_cast<size_t>(right)].id});
    }
  };
  for (size_t i = 0; i + 1 < symbols.size(); ++i) consider(static_cast<int32_t>(i));

  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[static_cast<size_t>(top.pos)];
    if (!left.alive || left.next < 0) continue;
    Symbol& right = symbols[static_cast<size_t>(left.next)];
    // Stale entry: one side was merged since it was queued.
    const auto it = merges_.find(PairKey(left.id, right.id));
    if (it == merges_.end() || it->second.new_id != top.new_id || right.id != top.right_id) continue;
    left.id = top.new_id;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0) symbols[static_cast<size_t>(right.next)].prev = top.pos;
    if (left.prev >= 0) consider(left.prev);
    consider(top.pos);
  }
  for (size_t i = 0; i < symbols.size();
       i = symbols[i].next < 0 ? symbols.size() : static_cast<size_t>(symbols[i].next)) {
    ids.push_back(symbols[i].id);
  }
}

std::unique_ptr<Model> MakeBpeModel(const JsonNode& config) { return std::make_unique<BpeModel>(config); }

}  // namespace modelkit::tokenizer
