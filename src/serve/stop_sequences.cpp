#include "modelkit/serve/stop_sequences.h"

#include <algorithm>

namespace modelkit::serve {

StopSequences::StopSequences(std::vector<std::string> sequences) : sequences_(std::move(sequences)) {}

std::string StopSequences::Add(std::string_view piece) {
  if (stopped_) return "";
  pending_ += piece;
  // The earliest stop sequence in what is pending ends the text there.
  size_t earliest = std::string::npos;
  for (const std::string& sequence : sequences_) earliest = std::min(earliest, pending_.find(sequence));
  if (earliest != std::string::npos) {
    stopped_ = true;
    std::string text = pending_.substr(0, earliest);
    pending_.clear();
    return text;
  }
  // Hold back the longest tail that is a proper prefix of some sequence: it may complete with the next piece.
  size_t held = 0;
  for (const std::string& sequence : sequences_) {
    for (size_t length = std::min(sequence.size() - 1, pending_.size()); length > held; --length) {
      if (pending_.compare(pending_.size() - length, length, sequence, 0, length) == 0) {
        held = length;
        break;
      }
    }
  }
  std::string text = pending_.substr(0, pending_.size() - held);
  pending_.erase(0, pending_.size() - held);
  return text;
}

std::string StopSequences::Finish() {
  std::string text = stopped_ ? "" : pending_;
  pending_.clear();
  return text;
}

}  // namespace modelkit::serve
