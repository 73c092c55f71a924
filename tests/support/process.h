// Running a program as a child process and capturing what it prints, for CLI contract tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace modelkit::test {

struct ProcessResult {
  int exit_code = -1;      // 128 + signal number when killed by a signal
  int signal = 0;          // the signal that ended the process; 0 when it exited
  bool timed_out = false;  // it outlived ChildProcess::Finish's timeout and was killed
  std::string stdout_text;
  std::string stderr_text;
};

// A child process with stdout and stderr piped, for tests that act while it runs (wait for its first output, send
// it a signal). Both pipes are read together, so a chatty child never blocks on a full pipe. The destructor kills
// (SIGKILL) and reaps a child that has not been finished.
class ChildProcess {
 public:
  // Starts `argv` (argv[0] is the program path) with extra environment variables set (an empty value unsets one).
  // Fails the test when the pipes cannot be made.
  explicit ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads output until stdout holds at least `bytes` bytes, the child closes both pipes, or `timeout` passes.
  // Returns whether stdout holds `bytes` bytes.
  bool WaitForStdout(size_t bytes, std::chrono::milliseconds timeout);
  // Sends `signal` to the child (not to its process group).
  void Signal(int signal);
  // Reads the rest of the output and waits for the child to end. Past `timeout` the child is killed (SIGKILL) and the
  // result has timed_out set. Call once.
  ProcessResult Finish(std::chrono::milliseconds timeout = std::chrono::milliseconds::max());

  // What the child printed to stdout so far.
  const std::string& stdout_text() const { return result_.stdout_text; }

 private:
  using TimePoint = std::chrono::steady_clock::time_point;
  // Waits until output arrives or `deadline` passes and reads it; false when both pipes are closed or the deadline
  // passed.
  bool ReadSome(TimePoint deadline);
  void Reap(TimePoint deadline);

  pid_t pid_ = -1;
  int fds_[2] = {-1, -1};  // stdout, stderr
  bool reaped_ = false;
  ProcessResult result_;
};

// Runs `argv` with `env` as ChildProcess does and waits for it to finish. Aborts the test on failure to start.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});

// Path of a file under tests/fixtures.
std::string FixturePath(const std::string& relative);

}  // namespace modelkit::test
