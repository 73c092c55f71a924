#include "progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace modelkit::app {

ProgressBar::ProgressBar(std::string label) : label_(std::move(label)), enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::Update(int done, int total, const std::string& suffix) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done != total && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  if (total <= 0) {
    std::fprintf(stderr, "\r\033[K%s %d%s", label_.c_str(), done, suffix.c_str());
  } else {
    constexpr int kWidth = 30;
    const int filled = done * kWidth / total;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(kWidth - filled), '.');
    std::fprintf(stderr, "\r\033[K%s [%s] %d/%d%s", label_.c_str(), bar.c_str(), done, total, suffix.c_str());
  }
  std::fflush(stderr);
}

}  // namespace modelkit::app
