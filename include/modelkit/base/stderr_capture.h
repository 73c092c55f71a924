// Captures what native libraries write straight to file descriptor 2 (e.g. Dawn's "Couldn't load Vulkan"
// warnings while probing WebGPU), so probes stay quiet and their chatter can be reported or dropped.
// Not thread-safe: use only while no other thread writes to stderr.
#pragma once

#include <string>

namespace modelkit {

class StderrCapture {
 public:
  StderrCapture();   // starts capturing; if redirection fails, output simply goes through
  ~StderrCapture();  // restores stderr
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  // Restores stderr and returns what was captured (at most 64 KiB). Later calls return "".
  std::string Finish();

 private:
  int saved_fd_ = -1;
  int capture_fd_ = -1;
};

}  // namespace modelkit
