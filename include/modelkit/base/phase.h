// Long phases of work announce themselves (loading a model, compiling a stage, the first request) so that a front
// end can tell its user what is happening. The library never draws anything: without an observer a phase costs one
// atomic load. Phases nest; the observer sees them begin and end in stack order on the thread that runs them.
#pragma once

#include <string>

namespace modelkit {

class PhaseObserver {
 public:
  virtual ~PhaseObserver() = default;
  virtual void PhaseBegan(const std::string& label) = 0;  // "loading stage ctx", "compiling stage ctx for simnpu"
  virtual void PhaseEnded() = 0;
};

// Installs the process's observer (nullptr: none). The observer must outlive every phase that sees it.
void SetPhaseObserver(PhaseObserver* observer);

// Announces a phase for its lifetime.
class ScopedPhase {
 public:
  explicit ScopedPhase(const std::string& label);
  ~ScopedPhase();
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseObserver* observer_;  // the one that saw it begin, so it also sees it end
};

}  // namespace modelkit
