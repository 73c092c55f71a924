// The loaded pipeline behind Tokenizer (private to the library).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "added_vocabulary.h"
#include "decoders/decoder.h"
#include "modelkit/tokenizer/tokenizer.h"
#include "models/model.h"
#include "normalizers/normalizer.h"
#include "post_processors/post_processor.h"
#include "pre_tokenizers/pre_tokenizer.h"

namespace modelkit::tokenizer {

struct Tokenizer::Impl {
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<Model> model;
  std::unique_ptr<PostProcessor> post_processor;
  std::unique_ptr<Decoder> decoder;

  std::deque<AddedToken> added_tokens;   // stable addresses for the matchers
  AddedTokenMatcher raw_matcher;         // normalized == false: searched in the input text
  AddedTokenMatcher normalized_matcher;  // normalized == true: searched in the normalized text
  std::vector<const AddedToken*> added_by_id;
  std::vector<bool> special_by_id;
  TokenizerConfig config;

  void EncodeSection(std::string_view section, bool at_text_start, std::vector<int32_t>& ids) const;
};

// transformers' clean_up_tokenization: drops the space before . ? ! , and English contractions.
std::string CleanUpTokenizationSpaces(std::string text);

// Reads tokenizer_config.json (`config_json` may be empty: all defaults), resolving token ids through `tokenizer`.
TokenizerConfig ParseTokenizerConfig(std::string_view config_json, const std::string& source,
                                     const Tokenizer& tokenizer);

// Adds what special_tokens_map.json (tokens the config lacks) and generation_config.json (bos/eos ids) say; either
// text may be empty.
void ApplyCompanionFiles(std::string_view special_tokens_map_json, const std::string& map_source,
                         std::string_view generation_config_json, const std::string& generation_source,
                         const Tokenizer& tokenizer, TokenizerConfig& config);

}  // namespace modelkit::tokenizer
