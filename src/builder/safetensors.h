// Reading Hugging Face .safetensors files: memory-mapped, header parsed once, tensors converted to fp32 one at a
// time (F32, F16, BF16). A directory may hold one file or shards listed by model.safetensors.index.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weight_source.h"

namespace modelkit::builder {

class SafetensorsFile {
 public:
  struct TensorInfo {
    std::string dtype;  // as in the header: "F32", "BF16", ...
    std::vector<int64_t> shape;
    uint64_t begin = 0;  // byte offsets into the data section
    uint64_t end = 0;
  };

  // Maps `path` and parses its header. Throws Error(kInvalidModel) naming the file (and tensor) for a short file,
  // a bad header, or a tensor whose bytes lie past the end of the file or do not match its shape.
  explicit SafetensorsFile(std::filesystem::path path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }

  // fp32 copy of tensor `name` checked against `shape`; see WeightSource::Load.
  std::vector<float> ReadF32(const std::string& name, const std::vector<int64_t>& shape) const;

 private:
  std::filesystem::path path_;
  const uint8_t* map_ = nullptr;
  uint64_t size_ = 0;
  uint64_t data_start_ = 0;
  std::map<std::string, TensorInfo> tensors_;
};

// All safetensors of a checkpoint directory: the shards named by model.safetensors.index.json when it exists,
// else every *.safetensors file. Throws Error(kInvalidModel) when there are none, or a tensor appears twice.
class SafetensorsCheckpoint : public WeightSource {
 public:
  explicit SafetensorsCheckpoint(const std::filesystem::path& dir);

  bool Contains(const std::string& name) const override;
  std::vector<float> Load(const std::string& name, const std::vector<int64_t>& shape) const override;

 private:
  std::filesystem::path dir_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile*> owner_;
};

}  // namespace modelkit::builder
