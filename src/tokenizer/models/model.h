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
