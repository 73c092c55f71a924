#include "terminal_status.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace modelkit::app {
namespace {

constexpr auto kShowAfter = std::chrono::seconds(1);  // shorter phases are not worth a line
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

bool TerminalCanRedraw() {
  if (isatty(STDERR_FILENO) != 1) return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

}  // namespace

TerminalStatus& TerminalStatus::Get() {
  static TerminalStatus status;
  return status;
}

TerminalStatus::TerminalStatus() : enabled_(TerminalCanRedraw()) {
  if (!enabled_) return;
  SetPhaseObserver(this);
  ticker_ = std::thread([this] { Tick(); });
}

TerminalStatus::~TerminalStatus() {
  SetPhaseObserver(nullptr);
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  Clear();
}

void TerminalStatus::Silence() {
  const std::lock_guard lock(mutex_);
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
  enabled_ = false;
}

void TerminalStatus::PhaseBegan(const std::string& label) {
  const std::lock_guard lock(mutex_);
  phases_.push_back({label, Clock::now()});
}

void TerminalStatus::PhaseEnded() {
  const std::lock_guard lock(mutex_);
  if (!phases_.empty()) phases_.pop_back();
  // The ended phase's line goes; an enclosing phase is drawn again at the next tick.
  if (drawn_ && Clock::now() - bar_drawn_at_ > kShowAfter) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }
}

void TerminalStatus::DrawBar(const std::string& text) {
  const std::lock_guard lock(mutex_);
  if (!enabled_) return;
  bar_drawn_at_ = Clock::now();
  DrawLocked(text);
}

void TerminalStatus::Clear() {
  const std::lock_guard lock(mutex_);
  if (!drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

void TerminalStatus::DrawLocked(const std::string& text) {
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void TerminalStatus::Tick() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kRedrawEvery);
    if (stopping_ || !enabled_ || phases_.empty()) continue;
    const Clock::time_point now = Clock::now();
    const Phase& phase = phases_.back();
    // A progress bar drawn lately owns the line; a phase shows once it has lasted long enough to be noticed.
    if (now - bar_drawn_at_ < kShowAfter || now - phase.began < kShowAfter) continue;
    const double seconds = std::chrono::duration<double>(now - phase.began).count();
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, "... %.1f s", seconds);
    DrawLocked(phase.label + elapsed);
  }
}

void ClearStatusLine() { TerminalStatus::Get().Clear(); }

void PrintOnStderr(const std::string& line) {
  ClearStatusLine();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace modelkit::app
