#include "modelkit/base/isolated_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>

#include "modelkit/base/error.h"

namespace modelkit {
namespace {

using Clock = std::chrono::steady_clock;

// The first byte the child writes says how `work` ended; the rest is its value.
constexpr char kReturnedTag = 'R';
constexpr char kThrewTag = 'T';

#if defined(__SANITIZE_ADDRESS__)  // GCC and clang both define it
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// This process's address space in bytes (/proc/self/statm), or 0 when unknown.
size_t AddressSpaceBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  if (!(statm >> pages)) return 0;
  return pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

[[noreturn]] void RunChild(int out, const std::function<std::string()>& work, const IsolationLimits& limits) {
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) {  // the child's own output would interleave with the caller's
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // The sanitizers reserve terabytes of shadow memory as they go: a limit on the address space breaks them.
  if (!kSanitized) {
    if (const size_t inherited = AddressSpaceBytes(); inherited > 0) {
      const rlimit memory{inherited + limits.extra_memory, inherited + limits.extra_memory};
      setrlimit(RLIMIT_AS, &memory);
    }
  }
  char tag = kReturnedTag;
  std::string value;
  try {
    value = work();
  } catch (const std::bad_alloc&) {
    tag = kThrewTag;
    value = "ran out of memory (more than " + std::to_string(limits.extra_memory >> 20) + " MiB)";
  } catch (const std::exception& error) {
    tag = kThrewTag;
    value = error.what();
  } catch (...) {
    tag = kThrewTag;
    value = "failed with an unknown exception";
  }
  const bool written = WriteAll(out, &tag, 1) && WriteAll(out, value.data(), value.size());
  _exit(written ? 0 : 1);  // no destructors or atexit handlers: they belong to the parent
}

}  // namespace

IsolatedResult RunIsolated(const std::function<std::string()>& work, const IsolationLimits& limits) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw RuntimeError(std::string("cannot create a pipe for an isolated call: ") + std::strerror(errno));
  }
  std::fflush(nullptr);  // what the parent buffered must not be written twice
  const Clock::time_point start = Clock::now();
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw RuntimeError(std::string("cannot start an isolated call: ") + std::strerror(error));
  }
  if (child == 0) {
    close(pipe_fds[0]);
    RunChild(pipe_fds[1], work, limits);
  }
  close(pipe_fds[1]);

  IsolatedResult result;
  std::string received;
  bool killed = false;
  for (;;) {
    const auto left = limits.time - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (left.count() <= 0) {
      result.outcome = IsolatedOutcome::kTimedOut;
      killed = true;
      break;
    }
    pollfd poll_fd{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&poll_fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline is checked at the top
    char buffer[65536];
    const ssize_t got = read(pipe_fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of file: the child is done
    received.append(buffer, static_cast<size_t>(got));
    if (received.size() > limits.output_bytes + 1) {
      result.outcome = IsolatedOutcome::kOutputTooLarge;
      killed = true;
      break;
    }
  }
  close(pipe_fds[0]);
  if (killed) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed) return result;
  if (WIFSIGNALED(status)) {
    result.outcome = IsolatedOutcome::kCrashed;
    result.signal = WTERMSIG(status);
    return result;
  }
  if (received.empty() || (received[0] != kReturnedTag && received[0] != kThrewTag)) {
    result.outcome = IsolatedOutcome::kCrashed;  // exited without a result
    return result;
  }
  result.outcome = received[0] == kReturnedTag ? IsolatedOutcome::kReturned : IsolatedOutcome::kThrew;
  result.value = received.substr(1);
  return result;
}

std::string DescribeIsolatedFailure(const IsolatedResult& result, const IsolationLimits& limits) {
  switch (result.outcome) {
    case IsolatedOutcome::kReturned:
      return "";
    case IsolatedOutcome::kThrew:
      return result.value;
    case IsolatedOutcome::kCrashed:
      if (result.signal == SIGSEGV) {
        return "crashed (signal 11, Segmentation fault: most often recursion too deep for the stack)";
      }
      if (result.signal == 0) return "ended without a result";
      return "crashed (signal " + std::to_string(result.signal) + ", " + strsignal(result.signal) + ")";
    case IsolatedOutcome::kTimedOut:
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(limits.time.count()) / 1000.0);
      return std::string("took longer than ") + seconds + " s";
    case IsolatedOutcome::kOutputTooLarge:
      return "produced more than " + std::to_string(limits.output_bytes >> 20) + " MiB";
  }
  return "";
}

}  // namespace modelkit
