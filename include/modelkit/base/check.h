// Invariant checks: a broken invariant is a bug in modelkit, not a user error, so it aborts with file:line.
#pragma once

namespace modelkit::detail {
[[noreturn]] void CheckFailed(const char* condition, const char* file, int line);
}  // namespace modelkit::detail

#define MODELKIT_CHECK(condition)                                                      \
  do {                                                                                 \
    if (!(condition)) ::modelkit::detail::CheckFailed(#condition, __FILE__, __LINE__); \
  } while (false)
