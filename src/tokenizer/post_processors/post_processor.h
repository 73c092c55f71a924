// Post-processors: add the model's special tokens around an encoded sequence (tokenizer.json "post_processor").
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "../json_node.h"

namespace modelkit::tokenizer {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // Rewrites the ids of one encoded sequence; special tokens are added only with `add_special_tokens`.
  virtual void Process(std::vector<int32_t>& ids, bool add_special_tokens) const = 0;
};

// Builds the post-processor `config` describes (TemplateProcessing, ByteLevel, Sequence). Unsupported types fail
// naming the JSON path. A null config is none (nullptr).
std::unique_ptr<PostProcessor> MakePostProcessor(const JsonNode& config);

}  // namespace modelkit::tokenizer
