// libFuzzer target: arbitrary bytes as a .safetensors checkpoint file. Opening it either succeeds or throws
// modelkit::Error; every tensor of an accepted header converts to fp32 with its own shape without reading out of
// bounds.
#include <cstddef>
#include <cstdint>

#include "builder/safetensors.h"
#include "memory_file.h"
#include "modelkit/base/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const modelkit::fuzz::MemoryFile file(data, size);
  if (!file.ok()) return 0;
  try {
    const modelkit::builder::SafetensorsFile safetensors(file.path());
    for (const auto& [name, info] : safetensors.tensors()) {
      try {
        safetensors.ReadF32(name, info.shape);
      } catch (const modelkit::Error&) {
      }
    }
  } catch (const modelkit::Error&) {
  }
  return 0;
}
