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

// Reads what is available on `fd` into `text` (bounded); closes `fd` and sets it to -1 at end of stream.
void Drain(int& fd, std::string& text) {
  char buffer[4096];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n > 0) {
    if (text.size() < kMaxCapturedBytes) text.append(buffer, static_cast<size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    close(fd);
    fd = -1;
  }
}

}  // namespace

ChildResult RunChildWithTimeout(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    throw RuntimeError(std::string("cannot start a compile process: ") + std::strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw RuntimeError(std::string("cannot start a compile process: ") + std::strerror(errno));
  }
  const Clock::time_point start = Clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    throw RuntimeError(std::string("cannot start a compile process: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a timeout kills anything it started too
    // A compiler must not outlive the run that wanted it (a parent killed mid-compile): it dies with it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);

  ChildResult result;
  int out_fd = out_pipe[0];
  int err_fd = err_pipe[0];
  bool killed = false;
  int status = 0;
  bool reaped = false;
  while (!reaped) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(start + timeout - Clock::now());
    if (left.count() <= 0 && !killed) {
      kill(-pid, SIGKILL);
      killed = true;
    }
    const int wait_ms = killed ? 50 : static_cast<int>(std::min<int64_t>(left.count(), 50));
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};  // a negative fd is ignored by poll
    if (out_fd >= 0 || err_fd >= 0) {
      if (poll(fds, 2, wait_ms) > 0) {
        if (out_fd >= 0 && fds[0].revents != 0) Drain(out_fd, result.stdout_text);
        if (err_fd >= 0 && fds[1].revents != 0) Drain(err_fd, result.stderr_text);
      }
    } else {
      usleep(static_cast<useconds_t>(wait_ms) * 1000);
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) reaped = true;
  }
  // What the child wrote just before it ended may still be in the pipes; a grandchild that keeps them open (or keeps
  // writing) is not waited for.
  for (int round = 0; round < 64 && (out_fd >= 0 || err_fd >= 0); ++round) {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    if (poll(fds, 2, 0) <= 0) break;
    if (out_fd >= 0 && fds[0].revents != 0) Drain(out_fd, result.stdout_text);
    if (err_fd >= 0 && fds[1].revents != 0) Drain(err_fd, result.stderr_text);
  }
  if (out_fd >= 0) close(out_fd);
  if (err_fd >= 0) close(err_fd);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    result.outcome = result.exit_code == 0 ? ChildOutcome::kSucceeded : ChildOutcome::kFailed;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.outcome = killed ? ChildOutcome::kTimedOut : ChildOutcome::kCrashed;
  }
  if (result.outcome != ChildOutcome::kSucceeded) result.error_line = LastLine(result.stderr_text);
  return result;
}

std::string DescribeOutcome(const ChildResult& result, std::chrono::milliseconds timeout) {
  switch (result.outcome) {
    case ChildOutcome::kSucceeded:
      return "compiled";
    case ChildOutcome::kFailed: {
      // The child's own "error: " prefix would read twice inside a warning line.
      const std::string_view prefix = "error: ";
      std::string_view line = result.error_line;
      if (line.substr(0, prefix.size()) == prefix) line.remove_prefix(prefix.size());
      return line.empty() ? "failed" : "failed (" + std::string(line) + ")";
    }
    case ChildOutcome::kCrashed:
      return "crashed (signal " + std::to_string(result.signal) + ")";
    case ChildOutcome::kTimedOut:
      return "timed out after " + std::to_string(timeout.count() / 1000.0).substr(0, 5) + " s";
  }
  return "failed";
}

}  // namespace modelkit::compile
