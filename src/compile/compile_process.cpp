#include "compile_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"

namespace modelkit::compile {
namespace {

using Clock = std::chrono::steady_clock;

std::string LastLine(const std::string& text) {
  const std::string trimmed = Trim(text);
  const size_t newline = trimmed.rfind('\n');
  return newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
}

}  // namespace

ChildResult RunChildWithTimeout(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0)
    throw RuntimeError(std::string("cannot start a compile process: ") + std::strerror(errno));
  const Clock::time_point start = Clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(err_pipe[0]);
    close(err_pipe[1]);
    throw RuntimeError(std::string("cannot start a compile process: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a timeout kills anything it started too
    // A compiler must not outlive the run that wanted it (a parent killed mid-compile): it dies with it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(err_pipe[1]);

  ChildResult result;
  std::string stderr_text;
  bool killed = false;
  int status = 0;
  bool reaped = false;
  char buffer[4096];
  while (!reaped) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(start + timeout - Clock::now());
    if (left.count() <= 0 && !killed) {
      kill(-pid, SIGKILL);
      killed = true;
    }
    pollfd fd{err_pipe[0], POLLIN, 0};
    const int wait_ms = killed ? 50 : static_cast<int>(std::min<int64_t>(left.count(), 50));
    if (err_pipe[0] >= 0 && poll(&fd, 1, wait_ms) > 0) {
      const ssize_t n = read(err_pipe[0], buffer, sizeof buffer);
      if (n > 0) {
        if (stderr_text.size() < 65536) stderr_text.append(buffer, static_cast<size_t>(n));
      } else {
        close(err_pipe[0]);
        err_pipe[0] = -1;
      }
    } else if (err_pipe[0] < 0) {
      usleep(static_cast<useconds_t>(wait_ms) * 1000);
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) reaped = true;
  }
  if (err_pipe[0] >= 0) close(err_pipe[0]);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    result.outcome = result.exit_code == 0 ? ChildOutcome::kSucceeded : ChildOutcome::kFailed;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.outcome = killed ? ChildOutcome::kTimedOut : ChildOutcome::kCrashed;
  }
  if (result.outcome != ChildOutcome::kSucceeded) result.error_line = LastLine(stderr_text);
  return result;
}

std::string DescribeOutcome(const ChildResult& result, std::chrono::milliseconds timeout) {
  switch (result.outcome) {
    case ChildOutcome::kSucceeded:
      return "compiled";
    case ChildOutcome::kFailed:
      return "failed" + (result.error_line.empty() ? "" : " (" + result.error_line + ")");
    case ChildOutcome::kCrashed:
      return "crashed (signal " + std::to_string(result.signal) + ")";
    case ChildOutcome::kTimedOut:
      return "timed out after " + std::to_string(timeout.count() / 1000.0).substr(0, 5) + " s";
  }
  return "failed";
}

}  // namespace modelkit::compile
