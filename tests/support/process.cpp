#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

namespace modelkit::test {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point DeadlineAfter(std::chrono::milliseconds timeout) {
  const Clock::time_point now = Clock::now();
  if (timeout >= std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - now)) {
    return Clock::time_point::max();
  }
  return now + timeout;
}

// Milliseconds left until `deadline` as poll() takes them (-1: no deadline).
int PollTimeout(Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return -1;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, INT_MAX));
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    reaped_ = true;
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    for (const auto& [name, value] : env) {
      if (value.empty()) {
        unsetenv(name.c_str());
      } else {
        setenv(name.c_str(), value.c_str(), 1);
      }
    }
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  fds_[0] = out_pipe[0];
  fds_[1] = err_pipe[0];
}

ChildProcess::~ChildProcess() {
  if (!reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  for (const int fd : fds_) {
    if (fd >= 0) close(fd);
  }
}

bool ChildProcess::ReadSome(TimePoint deadline) {
  pollfd polled[2] = {{fds_[0], POLLIN, 0}, {fds_[1], POLLIN, 0}};
  if (fds_[0] < 0 && fds_[1] < 0) return false;
  const int ready = poll(polled, 2, PollTimeout(deadline));
  if (ready < 0 && errno != EINTR) {
    ADD_FAILURE() << "poll: " << std::strerror(errno);
    return false;
  }
  if (ready == 0) return false;  // the deadline passed
  char buffer[8192];
  for (int i = 0; i < 2 && ready > 0; ++i) {
    if (fds_[i] < 0 || (polled[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    const ssize_t n = read(fds_[i], buffer, sizeof buffer);
    if (n > 0) {
      (i == 0 ? result_.stdout_text : result_.stderr_text).append(buffer, static_cast<size_t>(n));
    } else {
      close(fds_[i]);
      fds_[i] = -1;
    }
  }
  return fds_[0] >= 0 || fds_[1] >= 0;
}

bool ChildProcess::WaitForStdout(size_t bytes, std::chrono::milliseconds timeout) {
  const TimePoint deadline = DeadlineAfter(timeout);
  while (result_.stdout_text.size() < bytes && Clock::now() < deadline && ReadSome(deadline)) {
  }
  return result_.stdout_text.size() >= bytes;
}

void ChildProcess::Signal(int signal) {
  if (!reaped_) kill(pid_, signal);
}

void ChildProcess::Reap(TimePoint deadline) {
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid_, &status, deadline == Clock::time_point::max() ? 0 : WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) {
      ADD_FAILURE() << "waitpid: " << std::strerror(errno);
      return;
    }
    if (done == 0 && Clock::now() >= deadline) {
      result_.timed_out = true;
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  reaped_ = true;
  if (WIFEXITED(status)) {
    result_.exit_code = WEXITSTATUS(status);
  } else {
    result_.signal = WTERMSIG(status);
    result_.exit_code = 128 + result_.signal;
  }
}

ProcessResult ChildProcess::Finish(std::chrono::milliseconds timeout) {
  const TimePoint deadline = DeadlineAfter(timeout);
  while (Clock::now() < deadline && ReadSome(deadline)) {
  }
  if (!reaped_) Reap(deadline);
  // Whatever a killed child left in the pipes.
  while (ReadSome(Clock::now())) {
  }
  return result_;
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  return ChildProcess(argv, env).Finish();
}

std::string FixturePath(const std::string& relative) { return std::string(MODELKIT_FIXTURES_DIR) + "/" + relative; }

}  // namespace modelkit::test
