// OpenAI's `stop`: the generated text ends before the first occurrence of any stop sequence. Text arrives in pieces as
// the generator makes it final; what could still become the start of a stop sequence is held back until it cannot,
// so a streamed response never shows text the non-streamed one leaves out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace modelkit::serve {

class StopSequences {
 public:
  explicit StopSequences(std::vector<std::string> sequences);

  // Adds a piece of generated text; returns the text that is now safe to emit. After a stop sequence is found,
  // stopped() is true and later pieces return nothing.
  std::string Add(std::string_view piece);
  // The held-back rest once generation ended without a stop.
  std::string Finish();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> sequences_;
  std::string pending_;
  bool stopped_ = false;
};

}  // namespace modelkit::serve
