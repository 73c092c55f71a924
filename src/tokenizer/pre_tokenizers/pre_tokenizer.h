// Pre-tokenizers: cut normalized text into pieces the model encodes separately (tokenizer.json "pre_tokenizer").
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../json_node.h"

namespace modelkit::tokenizer {

// Pieces of text as byte ranges of one buffer: a step that only cuts (Split, Digits, Whitespace) writes ranges and
// copies no text; a step that rewrites bytes (ByteLevel, Metaspace) writes one new buffer. Encoding is hot, and a
// string per piece per step cost more than the cutting itself.
struct PieceList {
  std::string text;
  std::vector<std::pair<size_t, size_t>> spans;  // [begin, end) in `text`, in order

  size_t size() const { return spans.size(); }
  std::string_view operator[](size_t i) const {
    return std::string_view(text).substr(spans[i].first, spans[i].second - spans[i].first);
  }
  // Makes this the single piece `whole` (even when empty: Metaspace still prepends to it).
  void Reset(std::string_view whole) {
    text.assign(whole);
    spans.assign(1, {0, text.size()});
  }
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces `pieces` by their pre-tokenized pieces (all valid UTF-8; empty ones are skipped). `at_text_start` says
  // whether pieces[0] begins at offset 0 of the whole input (Metaspace's prepend_scheme "first" needs it).
  virtual void PreTokenize(PieceList& pieces, bool at_text_start) const = 0;
};

// Builds the pre-tokenizer `config` describes (ByteLevel, Split, Metaspace, Whitespace, WhitespaceSplit, Digits,
// Sequence). Unsupported types fail naming the JSON path. A null config is none (nullptr).
std::unique_ptr<PreTokenizer> MakePreTokenizer(const JsonNode& config);

std::unique_ptr<PreTokenizer> MakeByteLevelPreTokenizer(const JsonNode& config);
std::unique_ptr<PreTokenizer> MakeSplitPreTokenizer(const JsonNode& config);
std::unique_ptr<PreTokenizer> MakeMetaspacePreTokenizer(const JsonNode& config);
std::unique_ptr<PreTokenizer> MakeWhitespacePreTokenizer(const JsonNode& config);
std::unique_ptr<PreTokenizer> MakeWhitespaceSplitPreTokenizer(const JsonNode& config);
std::unique_ptr<PreTokenizer> MakeDigitsPreTokenizer(const JsonNode& config);

}  // namespace modelkit::tokenizer
