#include "modelkit/tokenizer/streaming_decoder.h"

#include "utf8.h"

namespace modelkit::tokenizer {

StreamingDecoder::StreamingDecoder(const Tokenizer& tokenizer, DecodeOptions options)
    : tokenizer_(&tokenizer), options_(options) {
  options_.clean_up_tokenization_spaces = false;
}

std::string StreamingDecoder::DecodeWindow(size_t end) const {
  return tokenizer_->Decode(std::span<const int32_t>(ids_.data(), end), options_);
}

std::string StreamingDecoder::Step(int32_t id) {
  if (!tokenizer_->IdToToken(id)) tokenizer_->Decode(std::span<const int32_t>(&id, 1), options_);  // throws
  ids_.push_back(id);
  const std::string text = DecodeWindow(ids_.size());
  // Held back while the text ends in U+FFFD: the bytes of a character may still be arriving. Also while the window
  // does not extend what was already emitted (a decoder may rewrite its first token).
  if (text.size() <= prefix_.size() || text.ends_with(kReplacementCharacter) ||
      text.compare(0, prefix_.size(), prefix_) != 0) {
    return "";
  }
  std::string fresh = text.substr(prefix_.size());
  // Keep context for the next window: decoders treat the first token specially (Metaspace drops its leading space),
  // and byte runs must be decoded from their start. So the window restarts at the last token that decodes to clean,
  // non-empty text on its own; everything in it is emitted already.
  size_t keep = ids_.size() - 1;
  while (keep > 0) {
    const std::string alone = tokenizer_->Decode(std::span<const int32_t>(&ids_[keep], 1), options_);
    if (!alone.empty() && alone.find(kReplacementCharacter) == std::string::npos) break;
    --keep;
  }
  ids_.erase(ids_.begin(), ids_.begin() + static_cast<ptrdiff_t>(keep));
  prefix_ = keep == 0 ? text : DecodeWindow(ids_.size());
  return fresh;
}

std::string StreamingDecoder::Flush() {
  const std::string text = DecodeWindow(ids_.size());
  std::string rest = text.compare(0, prefix_.size(), prefix_) == 0 ? text.substr(prefix_.size()) : "";
  ids_.clear();
  prefix_.clear();
  return rest;
}

}  // namespace modelkit::tokenizer
