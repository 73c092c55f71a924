#include "modelkit/base/phase.h"

#include <atomic>

namespace modelkit {
namespace {

std::atomic<PhaseObserver*> g_observer{nullptr};

}  // namespace

void SetPhaseObserver(PhaseObserver* observer) { g_observer.store(observer); }

ScopedPhase::ScopedPhase(const std::string& label) : observer_(g_observer.load()) {
  if (observer_ != nullptr) observer_->PhaseBegan(label);
}

ScopedPhase::~ScopedPhase() {
  if (observer_ != nullptr) observer_->PhaseEnded();
}

}  // namespace modelkit
