#include "progress_bar.h"

#include <cmath>
#include <cstdio>

#include "terminal_status.h"

namespace modelkit::app {

std::string RoughDuration(double seconds) {
  const auto whole = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  char text[48];
  if (whole < 60) {
    std::snprintf(text, sizeof text, "%lld s", whole);
  } else if (whole < 3600) {
    std::snprintf(text, sizeof text, "%lld min %02lld s", whole / 60, whole % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld h %02lld min", whole / 3600, (whole % 3600) / 60);
  }
  return text;
}

ProgressBar::ProgressBar(std::string label) : label_(std::move(label)), started_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Finish() {
  if (drawn_) TerminalStatus::Get().Clear();
  drawn_ = false;
}

void ProgressBar::Update(int done, int total, const std::string& suffix) {
  TerminalStatus& status = TerminalStatus::Get();
  if (!status.enabled()) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done != total && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  char line[256];
  if (total <= 0) {
    std::snprintf(line, sizeof line, "%s %d, %s%s", label_.c_str(), done, RoughDuration(elapsed).c_str(),
                  suffix.c_str());
  } else {
    constexpr int kWidth = 30;
    const int filled = done * kWidth / total;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(kWidth - filled), '.');
    const std::string eta =
        done > 0 && done < total ? ", ETA " + RoughDuration(elapsed / done * (total - done)) : std::string();
    std::snprintf(line, sizeof line, "%s [%s] %d/%d%s%s", label_.c_str(), bar.c_str(), done, total, eta.c_str(),
                  suffix.c_str());
  }
  status.DrawBar(line);
}

}  // namespace modelkit::app
