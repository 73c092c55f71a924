// Incremental decoding for streaming generation: feed ids one at a time, get text as soon as it is final.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "modelkit/tokenizer/tokenizer.h"

namespace modelkit::tokenizer {

// Never returns half a UTF-8 character: text whose bytes are still incomplete is held back until the token that
// completes it arrives (or Flush()). The concatenation of every Step() and Flush() equals Decode() of all ids with
// clean_up_tokenization_spaces off. Follows the window scheme of Hugging Face's DecodeStream.
class StreamingDecoder {
 public:
  // `tokenizer` must outlive the decoder. `options.clean_up_tokenization_spaces` is ignored (always off).
  explicit StreamingDecoder(const Tokenizer& tokenizer, DecodeOptions options = {});

  // Adds `id`; returns the text that became final (possibly empty). Throws UsageError for an unknown id.
  std::string Step(int32_t id);
  // Returns whatever is still held back (e.g. a truncated character as U+FFFD) and resets the decoder.
  std::string Flush();

 private:
  std::string DecodeWindow(size_t end) const;

  const Tokenizer* tokenizer_;
  DecodeOptions options_;
  std::vector<int32_t> ids_;  // the window: context tokens already emitted, then pending ones
  std::string prefix_;        // text already emitted for the window's tokens
};

}  // namespace modelkit::tokenizer
