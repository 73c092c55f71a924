// Running untrusted work — code whose cost is chosen by an input file, such as a chat template — in a forked child
// with bounds on time, memory and output, so that no input can crash, hang or exhaust the calling process. The child
// is a fork (no exec): it runs `work` on a copy of this process and hands back its string; whatever it does, the
// caller sees one of the outcomes below. A fork costs page tables, not memory (copy on write): a few milliseconds
// for a process holding a model.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace modelkit {

struct IsolationLimits {
  std::chrono::milliseconds time{10000};   // wall clock, from the fork
  size_t extra_memory = size_t{1} << 30;   // address space the child may add to what it inherits
  size_t output_bytes = size_t{64} << 20;  // the largest result accepted
};

enum class IsolatedOutcome {
  kReturned,        // `value` is what work returned
  kThrew,           // `value` is the exception's message (std::bad_alloc: the memory limit was reached)
  kCrashed,         // a signal ended the child (`signal`; a stack overflow is SIGSEGV)
  kTimedOut,        // killed once limits.time passed
  kOutputTooLarge,  // killed once its result passed limits.output_bytes
};

struct IsolatedResult {
  IsolatedOutcome outcome = IsolatedOutcome::kCrashed;
  std::string value;
  int signal = 0;
};

// Runs `work` in a child within `limits`. Throws RuntimeError when the child cannot be started (fork or pipe fails).
// `work` must not rely on threads of this process (a fork has only the calling thread).
IsolatedResult RunIsolated(const std::function<std::string()>& work, const IsolationLimits& limits = {});

// For messages: "took longer than 10 s", "was killed by signal 11 (Segmentation fault; deep recursion overflows
// the stack)", "produced more than 64 MiB", or the exception's message; empty for kReturned.
std::string DescribeIsolatedFailure(const IsolatedResult& result, const IsolationLimits& limits);

}  // namespace modelkit
