// libFuzzer target: arbitrary bytes as an .npz file given to --input-data. Reading either succeeds or throws
// modelkit::Error, within a 64 MiB array budget (a member that claims more is refused before it is inflated).
#include <cstddef>
#include <cstdint>

#include "memory_file.h"
#include "modelkit/base/error.h"
#include "perf/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const modelkit::fuzz::MemoryFile file(data, size);
  if (!file.ok()) return 0;
  try {
    modelkit::perf::ReadNpz(file.path(), size_t{64} << 20);
  } catch (const modelkit::Error&) {
  }
  return 0;
}
