// Running a compile in a throw-away child process with a time limit. EP compilers can hang, crash or corrupt the
// process that ran them (winml-cli saw QNN teardown faults poison the process that then loaded the model), so the
// parent only starts `modelkit compile` and judges how it ended; whatever happens, the parent stays clean.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace modelkit::compile {

enum class ChildOutcome { kSucceeded, kFailed, kCrashed, kTimedOut };

struct ChildResult {
  ChildOutcome outcome = ChildOutcome::kFailed;
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it (SIGKILL after a timeout included)
  std::string error_line;   // the child's last stderr line ("error: ...") when it failed
  std::string stdout_text;  // what it wrote, each stream up to kMaxCapturedBytes (the rest is dropped)
  std::string stderr_text;
  double seconds = 0;
};

inline constexpr size_t kMaxCapturedBytes = 64 * 1024;

// Runs argv (argv[0] an absolute program path) with stdout and stderr captured, killing the whole child process
// group with SIGKILL once `timeout` has passed. Throws RuntimeError when the child cannot be started.
ChildResult RunChildWithTimeout(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// "compiled", "failed", "crashed (signal N)" or "timed out after S s" for messages.
std::string DescribeOutcome(const ChildResult& result, std::chrono::milliseconds timeout);

}  // namespace modelkit::compile
