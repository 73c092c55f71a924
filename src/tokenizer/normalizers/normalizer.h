// Normalizers: the first step of encoding, text -> text (tokenizer.json "normalizer").
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "../json_node.h"

namespace modelkit::tokenizer {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // `text` is valid UTF-8; so is the result.
  virtual std::string Normalize(std::string_view text) const = 0;
};

// Builds the normalizer `config` describes (NFC, NFD, NFKC, NFKD, Lowercase, Replace, Prepend, Strip, Sequence).
// An unsupported type fails naming the JSON path. A null config is no normalizer (nullptr).
std::unique_ptr<Normalizer> MakeNormalizer(const JsonNode& config);

// The concrete kinds (one file each).
std::unique_ptr<Normalizer> MakeUnicodeNormalizer(const JsonNode& config, std::string_view form);
std::unique_ptr<Normalizer> MakeReplaceNormalizer(const JsonNode& config);
std::unique_ptr<Normalizer> MakeLowercaseNormalizer();
std::unique_ptr<Normalizer> MakePrependNormalizer(const JsonNode& config);
std::unique_ptr<Normalizer> MakeStripNormalizer(const JsonNode& config);

}  // namespace modelkit::tokenizer
