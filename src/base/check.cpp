#include "modelkit/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace modelkit::detail {

void CheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "modelkit: internal check failed: %s at %s:%d\n", condition, file, line);
  std::abort();
}

}  // namespace modelkit::detail
