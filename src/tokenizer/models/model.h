// Tokenizer models: a pre-tokenized piece -> token ids (tokenizer.json "model").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../json_node.h"

namespace modelkit::tokenizer {

// How far a token id may lie past the ids a tokenizer.json lists (its vocabulary's entries, then its added tokens).
// Ids index dense tables, so a file with one entry of id 2^31 would otherwise make a table of 2^31 entries; real
// tokenizers number their tokens from 0 with no gaps.
inline constexpr int64_t kMaxTokenIdGap = int64_t{1} << 16;

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of `piece` (valid UTF-8, not empty) to `ids`.
  virtual void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const = 0;
  virtual std::optional<int32_t> TokenToId(std::string_view token) const = 0;
  // The vocabulary as id -> token ("" for ids the model does not define).
  virtual const std::vector<std::string>& Vocabulary() const = 0;
};

// Builds the model `config` describes. Supported: BPE. Fails naming the JSON path otherwise.
std::unique_ptr<Model> MakeModel(const JsonNode& config);

std::unique_ptr<Model> MakeBpeModel(const JsonNode& config);

}  // namespace modelkit::tokenizer
