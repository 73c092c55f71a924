// A one-line progress bar on stderr, drawn only when stderr is a terminal (nothing when piped or redirected).
#pragma once

#include <chrono>
#include <string>

namespace modelkit::app {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // clears the line
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // done of total steps; total 0 means open-ended (a counter); `suffix` is appended (e.g. live resource use).
  // Redraws at most every 100 ms.
  void Update(int done, int total, const std::string& suffix = {});

 private:
  std::string label_;
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace modelkit::app
