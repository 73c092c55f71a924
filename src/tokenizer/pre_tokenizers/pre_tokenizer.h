// Pre-tokenizers: cut normalized text into pieces the model encodes separately (tokenizer.json "pre_tokenizer").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../json_node.h"

namespace modelkit::tokenizer {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces `pieces` by their pre-tokenized pieces (all valid UTF-8, none empty). `at_text_start` says whether
  // pieces[0] begins at offset 0 of the whole input (Metaspace's prepend_scheme "first" needs it).
  virtual void PreTokenize(std::vector<std::string>& pieces, bool at_text_start) const = 0;
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
