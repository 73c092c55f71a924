#include "modelkit/base/stderr_capture.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace modelkit {

StderrCapture::StderrCapture() {
  std::fflush(stderr);
  FILE* file = std::tmpfile();
  if (file == nullptr) return;
  capture_fd_ = dup(fileno(file));
  std::fclose(file);  // the dup keeps the anonymous file alive
  if (capture_fd_ < 0) return;
  saved_fd_ = dup(STDERR_FILENO);
  if (saved_fd_ < 0 || dup2(capture_fd_, STDERR_FILENO) < 0) {
    if (saved_fd_ >= 0) close(saved_fd_);
    close(capture_fd_);
    saved_fd_ = capture_fd_ = -1;
  }
}

StderrCapture::~StderrCapture() { Finish(); }

std::string StderrCapture::Finish() {
  if (saved_fd_ < 0) return {};
  std::fflush(stderr);
  dup2(saved_fd_, STDERR_FILENO);
  close(saved_fd_);
  saved_fd_ = -1;
  std::string captured;
  if (lseek(capture_fd_, 0, SEEK_SET) == 0) {
    char buffer[4096];
    ssize_t n = 0;
    while (captured.size() < 65536 && (n = read(capture_fd_, buffer, sizeof buffer)) > 0) {
      captured.append(buffer, static_cast<size_t>(n));
    }
  }
  close(capture_fd_);
  capture_fd_ = -1;
  return captured;
}

}  // namespace modelkit
