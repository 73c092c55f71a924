// Ctrl-C (SIGINT) and SIGTERM as a request to stop at the next safe point. While an InterruptScope lives, the signals
// set a flag instead of ending the process; the command polls it between load phases, requests, iterations or
// decode steps, unwinds (so nothing is left half-written) and exits 130. A second signal while a stop is pending ends
// the process at once: the user insists.
#pragma once

namespace modelkit::app {

class InterruptScope {
 public:
  InterruptScope();   // installs the handlers; clears a pending request
  ~InterruptScope();  // restores the previous handlers
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// True once SIGINT or SIGTERM arrived inside an InterruptScope.
bool InterruptRequested();

// Throws Error(kInterrupted) when a stop was requested: call it at safe points.
void StopIfInterrupted();

}  // namespace modelkit::app
