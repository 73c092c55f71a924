// The one status line on stderr. Phases that last longer than a second show as "loading stage ctx... 3.2 s"
// (redrawn by a ticker thread while the library works), progress bars draw on the same line, and anything else
// written to stderr clears the line first (ClearStatusLine) so that nothing is glued to it. Drawn only when stderr
// is a terminal that can redraw a line (TERM is not "dumb") and not silenced by --quiet; never any colour, never on
// stdout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "modelkit/base/phase.h"

namespace modelkit::app {

class TerminalStatus final : public PhaseObserver {
 public:
  // The process's status line, installed as the phase observer on first use.
  static TerminalStatus& Get();
  ~TerminalStatus() override;

  bool enabled() const { return enabled_; }
  void Silence();  // --quiet: nothing is drawn from now on

  void PhaseBegan(const std::string& label) override;
  void PhaseEnded() override;

  // Replaces the line with a progress bar's text (the bar limits its own redraw rate).
  void DrawBar(const std::string& text);
  // Erases the line if something is drawn on it.
  void Clear();

 private:
  TerminalStatus();
  void Tick();
  void DrawLocked(const std::string& text);

  using Clock = std::chrono::steady_clock;
  struct Phase {
    std::string label;
    Clock::time_point began;
  };
  bool enabled_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Phase> phases_;
  bool drawn_ = false;
  Clock::time_point bar_drawn_at_{};
  bool stopping_ = false;
  std::thread ticker_;
};

// Erases the status line before other output goes to stderr.
void ClearStatusLine();

// Writes `line` and a newline to stderr, on a line of its own.
void PrintOnStderr(const std::string& line);

}  // namespace modelkit::app
