#include "interrupt.h"

#include <csignal>

#include "modelkit/base/error.h"

namespace modelkit::app {
namespace {

volatile std::sig_atomic_t g_requested = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

extern "C" void OnStopSignal(int signal) {
  if (g_requested != 0) {  // the second one: stop now, as the signal would have without us
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_requested = 1;
}

}  // namespace

InterruptScope::InterruptScope() {
  g_requested = 0;
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

bool InterruptRequested() { return g_requested != 0; }

void StopIfInterrupted() {
  if (InterruptRequested())
    throw Error(ExitCode::kInterrupted, "interrupted; stopped before finishing, nothing written");
}

}  // namespace modelkit::app
