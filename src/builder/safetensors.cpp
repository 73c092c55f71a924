#include "safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/float16.h"

namespace modelkit::builder {
namespace {

Error Invalid(const std::string& message) { return Error(ExitCode::kInvalidModel, message); }

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// Bytes per element of the dtypes safetensors defines (0: not a dtype we know).
uint64_t DtypeSize(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2") return 1;
  return 0;
}

}  // namespace

SafetensorsFile::SafetensorsFile(std::filesystem::path path) : path_(std::move(path)) {
  const std::string file = path_.string();
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Invalid("cannot open checkpoint file " + file + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw Invalid("cannot stat checkpoint file " + file);
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ < 8) {
    ::close(fd);
    throw Invalid(file + " is not a safetensors file (truncated: " + std::to_string(size_) + " bytes)");
  }
  void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw Invalid("cannot map checkpoint file " + file + ": " + std::strerror(errno));
  map_ = static_cast<const uint8_t*>(map);
  try {
    uint64_t header_size = 0;
    for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | map_[i];
    if (header_size > size_ - 8) {
      throw Invalid(file + " is truncated or not a safetensors file: header of " + std::to_string(header_size) +
                    " bytes, file of " + std::to_string(size_));
    }
    data_start_ = 8 + header_size;
    const nlohmann::json header =
        nlohmann::json::parse(reinterpret_cast<const char*>(map_ + 8),
                              reinterpret_cast<const char*>(map_ + data_start_), nullptr, /*allow_exceptions=*/false);
    if (!header.is_object()) throw Invalid(file + ": safetensors header is not a JSON object");
    const uint64_t data_size = size_ - data_start_;
    for (const auto& [name, entry] : header.items()) {
      if (name == "__metadata__") continue;
      TensorInfo info;
      if (!entry.is_object() || !entry.contains("dtype") || !entry["dtype"].is_string() || !entry.contains("shape") ||
          !entry["shape"].is_array() || !entry.contains("data_offsets") || !entry["data_offsets"].is_array() ||
          entry["data_offsets"].size() != 2) {
        throw Invalid(file + ": bad safetensors header entry for tensor '" + name + "'");
      }
      info.dtype = entry["dtype"].get<std::string>();
      uint64_t count = 1;
      for (const auto& d : entry["shape"]) {
        if (!d.is_number_unsigned()) throw Invalid(file + ": bad shape for tensor '" + name + "'");
        info.shape.push_back(d.get<int64_t>());
        count *= d.get<uint64_t>();
      }
      if (!entry["data_offsets"][0].is_number_unsigned() || !entry["data_offsets"][1].is_number_unsigned()) {
        throw Invalid(file + ": bad data_offsets for tensor '" + name + "'");
      }
      info.begin = entry["data_offsets"][0].get<uint64_t>();
      info.end = entry["data_offsets"][1].get<uint64_t>();
      if (info.end < info.begin) throw Invalid(file + ": bad data_offsets for tensor '" + name + "'");
      if (info.end > data_size) {
        throw Invalid(file + " is truncated: tensor '" + name + "' ends at byte " +
                      std::to_string(data_start_ + info.end) + " but the file has " + std::to_string(size_) + " bytes");
      }
      const uint64_t element = DtypeSize(info.dtype);
      if (element != 0 && count * element != info.end - info.begin) {
        throw Invalid(file + ": tensor '" + name + "' has " + std::to_string(info.end - info.begin) +
                      " bytes, but its shape " + ShapeText(info.shape) + " and dtype " + info.dtype + " need " +
                      std::to_string(count * element));
      }
      tensors_.emplace(name, std::move(info));
    }
  } catch (...) {
    ::munmap(const_cast<uint8_t*>(map_), size_);
    throw;
  }
}

SafetensorsFile::~SafetensorsFile() {
  if (map_ != nullptr) ::munmap(const_cast<uint8_t*>(map_), size_);
}

std::vector<float> SafetensorsFile::ReadF32(const std::string& name, const std::vector<int64_t>& shape) const {
  const std::string file = path_.filename().string();
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Invalid(file + ": no tensor '" + name + "'");
  const TensorInfo& info = it->second;
  if (info.shape != shape) {
    throw Invalid(file + ": tensor '" + name + "' has shape " + ShapeText(info.shape) + ", expected " +
                  ShapeText(shape) + " from config.json");
  }
  uint64_t count = 1;
  for (const int64_t d : shape) count *= static_cast<uint64_t>(d);
  std::vector<float> values(count);
  const uint8_t* data = map_ + data_start_ + info.begin;
  if (info.dtype == "F32") {
    std::memcpy(values.data(), data, count * 4);
  } else if (info.dtype == "F16" || info.dtype == "BF16") {
    const bool bf16 = info.dtype == "BF16";
    for (uint64_t i = 0; i < count; ++i) {
      const uint16_t raw = static_cast<uint16_t>(data[2 * i] | (data[2 * i + 1] << 8));
      values[i] = bf16 ? BFloat16BitsToFloat(raw) : HalfBitsToFloat(raw);
    }
  } else {
    throw Invalid(file + ": tensor '" + name + "' has unsupported dtype " + info.dtype + "; supported: F32, F16, BF16");
  }
  return values;
}

SafetensorsCheckpoint::SafetensorsCheckpoint(const std::filesystem::path& dir) : dir_(dir) {
  const std::filesystem::path index = dir / "model.safetensors.index.json";
  std::vector<std::filesystem::path> paths;
  if (std::filesystem::exists(index)) {
    const nlohmann::json doc = nlohmann::json::parse(ReadTextFile(index, "checkpoint index"), nullptr, false);
    if (!doc.is_object() || !doc.contains("weight_map") || !doc["weight_map"].is_object()) {
      throw Invalid(index.string() + ": expected an object with a 'weight_map' object");
    }
    std::set<std::string> shards;
    for (const auto& [tensor, shard] : doc["weight_map"].items()) {
      if (!shard.is_string()) throw Invalid(index.string() + ": weight_map['" + tensor + "'] must be a file name");
      const std::string shard_name = shard.get<std::string>();
      if (shard_name.find('/') != std::string::npos || shard_name.find("..") != std::string::npos) {
        throw Invalid(index.string() + ": shard name '" + shard_name + "' must be a plain file name");
      }
      shards.insert(shard_name);
    }
    for (const std::string& shard : shards) {
      if (!std::filesystem::exists(dir / shard)) {
        throw Invalid(index.string() + " names shard '" + shard + "', which is missing from " + dir.string());
      }
      paths.push_back(dir / shard);
    }
  } else {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".safetensors") paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
  }
  if (paths.empty()) throw Invalid("checkpoint " + dir.string() + " has no *.safetensors files");
  for (const auto& path : paths) {
    files_.push_back(std::make_unique<SafetensorsFile>(path));
    for (const auto& [name, info] : files_.back()->tensors()) {
      const auto [it, inserted] = owner_.emplace(name, files_.back().get());
      if (!inserted) {
        throw Invalid("tensor '" + name + "' appears in both " + it->second->path().filename().string() + " and " +
                      path.filename().string());
      }
    }
  }
}

bool SafetensorsCheckpoint::Contains(const std::string& name) const { return owner_.count(name) != 0; }

std::vector<float> SafetensorsCheckpoint::Load(const std::string& name, const std::vector<int64_t>& shape) const {
  const auto it = owner_.find(name);
  if (it == owner_.end()) {
    throw Invalid("checkpoint " + dir_.string() + " has no tensor '" + name + "' (needed by config.json's model)");
  }
  return it->second->ReadF32(name, shape);
}

}  // namespace modelkit::builder
