// Decoders: token strings -> text (tokenizer.json "decoder"). Each step maps the list of token strings to a new
// list; Decode() joins the final list.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../json_node.h"

namespace modelkit::tokenizer {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void DecodeChain(std::vector<std::string>& tokens) const = 0;
};

// Builds the decoder `config` describes (ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence).
// Unsupported types fail naming the JSON path. A null config is none (nullptr: tokens are joined with spaces).
std::unique_ptr<Decoder> MakeDecoder(const JsonNode& config);

std::unique_ptr<Decoder> MakeByteLevelDecoder();
std::unique_ptr<Decoder> MakeMetaspaceDecoder(const JsonNode& config);
std::unique_ptr<Decoder> MakeByteFallbackDecoder();
std::unique_ptr<Decoder> MakeFuseDecoder();
std::unique_ptr<Decoder> MakeStripDecoder(const JsonNode& config);
std::unique_ptr<Decoder> MakeReplaceDecoder(const JsonNode& config);

}  // namespace modelkit::tokenizer
