// Real benchmark inputs from a NumPy .npz archive (numpy.savez / savez_compressed): one array per model input,
// keyed by the input's exact name.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "modelkit/perf/host_tensor.h"
#include "modelkit/perf/shape_config.h"

namespace modelkit::perf {

// Reads every array of an .npz file (C order; little-endian numeric, bool). Throws UsageError naming the file
// (and array) when it is missing, not a zip archive, or holds an unsupported or malformed array. A `.npy` path
// is rejected with advice. Each array's header is checked before its data is inflated: its shape and dtype must
// account for exactly the member's size (computed with overflow checks), and all arrays together must fit in
// `max_bytes` (by default this machine's memory), so a zip bomb is refused after reading a header.
// `check_header`, when given, sees each array's name, dtype and shape (no data yet) before its data is inflated,
// and refuses an array by throwing.
std::vector<HostTensor> ReadNpz(const std::filesystem::path& path, size_t max_bytes = 0,
                                const std::function<void(const HostTensor&)>& check_header = {});

// The arrays for `inputs`, in input order. Keys must equal the input names exactly (missing and unexpected keys
// are listed in the error); an array whose dtype differs is cast to the input's type (a warning is added); a
// shape that contradicts a fixed dimension, or a different rank, is a UsageError, found from the array's header
// before its data is inflated.
std::vector<HostTensor> LoadNpzInputs(const std::filesystem::path& path, const std::vector<TensorSpec>& inputs,
                                      std::vector<std::string>& warnings);

// Converts a tensor's elements to another numeric type (through double).
HostTensor CastTensor(const HostTensor& tensor, ElementType to);

}  // namespace modelkit::perf
