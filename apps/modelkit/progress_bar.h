// A one-line progress bar on the terminal status line (see terminal_status.h): drawn only when stderr is a terminal
// that can redraw a line, nothing when piped or redirected. Counted work shows its ETA, open-ended work its elapsed
// time.
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

  // Clears the line now, before the caller prints what follows the bar.
  void Finish();

 private:
  std::string label_;
  std::chrono::steady_clock::time_point started_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

// "12 s", "3 min 05 s", "1 h 02 min": a duration as a progress line shows it.
std::string RoughDuration(double seconds);

}  // namespace modelkit::app
