// Writing Hugging Face-style checkpoints for tests: .safetensors files (F32, F16, BF16, or raw bytes of any dtype)
// and whole checkpoint directories (config.json + one file or shards with model.safetensors.index.json).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "builder/weight_source.h"
#include "modelkit/builder/model_spec.h"

namespace modelkit::test {

struct RawTensor {
  std::string name;
  std::string dtype;  // safetensors spelling: "F32", "BF16", "I8", ...
  std::vector<int64_t> shape;
  std::string bytes;
};

// Converts fp32 values to the bytes of `dtype` ("F32", "F16" or "BF16", round to nearest even).
std::string EncodeFloats(const std::vector<float>& values, const std::string& dtype);
// The value a float becomes after a round trip through `dtype`.
float RoundTrip(float value, const std::string& dtype);

void WriteSafetensors(const std::filesystem::path& path, const std::vector<RawTensor>& tensors);

// config.json for `spec` in the Hugging Face spelling.
std::string HfConfigJson(const builder::ModelSpec& spec);

// Writes config.json and the tensors of `spec` from `source` in `dtype`, in `shards` files (an index when > 1).
void WriteHfCheckpoint(const std::filesystem::path& dir, const builder::ModelSpec& spec,
                       const builder::WeightSource& source, const std::string& dtype, int shards = 1);

}  // namespace modelkit::test
