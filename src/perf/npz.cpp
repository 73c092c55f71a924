#include "npz.h"

#include <zip.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <regex>

#include "modelkit/base/error.h"
#include "modelkit/base/float16.h"
#include "modelkit/base/host_info.h"
#include "modelkit/base/strings.h"

namespace modelkit::perf {
namespace {

namespace fs = std::filesystem;

// numpy 'descr' -> element type (little-endian or byte-order-free only).
const std::map<std::string, ElementType>& Descriptors() {
  static const std::map<std::string, ElementType> table = {
      {"<f4", ElementType::kFloat},  {"<f8", ElementType::kDouble}, {"<f2", ElementType::kFloat16},
      {"|i1", ElementType::kInt8},   {"<i2", ElementType::kInt16},  {"<i4", ElementType::kInt32},
      {"<i8", ElementType::kInt64},  {"|u1", ElementType::kUint8},  {"<u2", ElementType::kUint16},
      {"<u4", ElementType::kUint32}, {"<u8", ElementType::kUint64}, {"|b1", ElementType::kBool}};
  return table;
}

// A .npy array's header: what it holds and where its data starts.
struct NpyHeader {
  HostTensor tensor;  // name, type and shape; no data
  size_t data_offset = 0;
  size_t data_bytes = 0;
};

// The bytes of a .npy prefix that hold the header: the preamble says (10 or 12 bytes, then up to 4 GiB for version
// 2-3; real headers are under 1 KiB).
constexpr size_t kMaxNpyHeaderBytes = 1 << 20;

// Parses a .npy header (format versions 1-3) from `prefix`, the first bytes of the array (all of it, or at least
// the preamble and header). The data size is computed with overflow checks.
NpyHeader ParseNpyHeader(const std::string& name, const std::vector<std::byte>& prefix, const std::string& where) {
  auto fail = [&](const std::string& what) -> NpyHeader {
    throw UsageError(where + ": array '" + name + "': " + what);
  };
  if (prefix.size() < 10 || std::memcmp(prefix.data(), "\x93NUMPY", 6) != 0) return fail("not a .npy array");
  const auto major = static_cast<uint8_t>(prefix[6]);
  size_t header_len = 0;
  size_t offset = 0;
  if (major == 1) {
    header_len = static_cast<size_t>(prefix[8]) | (static_cast<size_t>(prefix[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (prefix.size() < 12) return fail("truncated header");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(prefix[8 + static_cast<size_t>(i)]) << (8 * i);
    offset = 12;
  } else {
    return fail("unsupported .npy version " + std::to_string(major));
  }
  if (header_len > kMaxNpyHeaderBytes) return fail("header of " + std::to_string(header_len) + " bytes is too large");
  if (offset + header_len > prefix.size()) return fail("truncated header");
  const std::string header(reinterpret_cast<const char*>(prefix.data()) + offset, header_len);
  std::smatch match;
  static const std::regex descr_re(R"('descr':\s*'([^']*)')");
  static const std::regex order_re(R"('fortran_order':\s*(True|False))");
  static const std::regex shape_re(R"('shape':\s*\(([^)]*)\))");
  if (!std::regex_search(header, match, descr_re)) return fail("header has no 'descr'");
  const std::string descr = match[1];
  const auto type = Descriptors().find(descr);
  if (type == Descriptors().end()) return fail("unsupported dtype '" + descr + "' (use little-endian numeric or bool)");
  if (!std::regex_search(header, match, order_re)) return fail("header has no 'fortran_order'");
  if (match[1] == "True") return fail("Fortran-ordered arrays are not supported; save with numpy.ascontiguousarray");
  if (!std::regex_search(header, match, shape_re)) return fail("header has no 'shape'");
  NpyHeader parsed;
  parsed.tensor.name = name;
  parsed.tensor.type = type->second;
  size_t bytes = ElementSize(parsed.tensor.type);
  for (const std::string& piece : Split(std::string(match[1]), ',')) {
    const std::string dim = Trim(piece);
    if (dim.empty()) continue;
    int64_t value = 0;
    try {
      size_t used = 0;
      value = std::stoll(dim, &used);
      if (used != dim.size()) throw std::invalid_argument(dim);
    } catch (const std::exception&) {
      return fail("bad shape '" + std::string(match[1]) + "'");
    }
    if (value < 0) return fail("bad shape '" + std::string(match[1]) + "' (negative dimension)");
    if (value > 0 && bytes > std::numeric_limits<size_t>::max() / static_cast<size_t>(value)) {
      return fail("shape (" + std::string(match[1]) + ") is too large to hold in memory");
    }
    bytes *= static_cast<size_t>(value);
    parsed.tensor.shape.push_back(value);
  }
  parsed.data_offset = offset + header_len;
  parsed.data_bytes = bytes;
  return parsed;
}

double ReadElement(const HostTensor& tensor, size_t i) {
  const std::byte* at = tensor.data.data() + i * ElementSize(tensor.type);
  auto load = [at]<typename T>(T) {
    T value;
    std::memcpy(&value, at, sizeof(T));
    return static_cast<double>(value);
  };
  switch (tensor.type) {
    case ElementType::kFloat:
      return load(float{});
    case ElementType::kDouble:
      return load(double{});
    case ElementType::kFloat16: {
      uint16_t bits;
      std::memcpy(&bits, at, 2);
      return HalfBitsToFloat(bits);
    }
    case ElementType::kBFloat16: {
      uint16_t bits;
      std::memcpy(&bits, at, 2);
      return BFloat16BitsToFloat(bits);
    }
    case ElementType::kInt8:
      return load(int8_t{});
    case ElementType::kInt16:
      return load(int16_t{});
    case ElementType::kInt32:
      return load(int32_t{});
    case ElementType::kInt64:
      return load(int64_t{});
    case ElementType::kBool:
    case ElementType::kUint8:
      return load(uint8_t{});
    case ElementType::kUint16:
      return load(uint16_t{});
    case ElementType::kUint32:
      return load(uint32_t{});
    case ElementType::kUint64:
      return load(uint64_t{});
    case ElementType::kString:
    case ElementType::kUndefined:
      break;
  }
  return 0;
}

// Integer conversion that saturates at the type's range (NaN becomes 0) instead of undefined behaviour.
template <typename T>
T SaturatingCast(double value) {
  if (std::isnan(value)) return T{0};
  const double low = static_cast<double>(std::numeric_limits<T>::lowest());
  const double high = static_cast<double>(std::numeric_limits<T>::max());
  if (value <= low) return std::numeric_limits<T>::lowest();
  if (value >= high) return std::numeric_limits<T>::max();
  return static_cast<T>(value);
}

void WriteElement(HostTensor& tensor, size_t i, double value) {
  std::byte* at = tensor.data.data() + i * ElementSize(tensor.type);
  auto store = [at]<typename T>(T converted) { std::memcpy(at, &converted, sizeof(T)); };
  switch (tensor.type) {
    case ElementType::kFloat:
      return store(static_cast<float>(value));
    case ElementType::kDouble:
      return store(value);
    case ElementType::kFloat16:
      return store(FloatToHalfBits(static_cast<float>(value)));
    case ElementType::kBFloat16:
      return store(FloatToBFloat16Bits(static_cast<float>(value)));
    case ElementType::kInt8:
      return store(SaturatingCast<int8_t>(value));
    case ElementType::kInt16:
      return store(SaturatingCast<int16_t>(value));
    case ElementType::kInt32:
      return store(SaturatingCast<int32_t>(value));
    case ElementType::kInt64:
      return store(SaturatingCast<int64_t>(value));
    case ElementType::kBool:
      return store(static_cast<uint8_t>(value != 0));
    case ElementType::kUint8:
      return store(SaturatingCast<uint8_t>(value));
    case ElementType::kUint16:
      return store(SaturatingCast<uint16_t>(value));
    case ElementType::kUint32:
      return store(SaturatingCast<uint32_t>(value));
    case ElementType::kUint64:
      return store(SaturatingCast<uint64_t>(value));
    case ElementType::kString:
    case ElementType::kUndefined:
      break;
  }
}

}  // namespace

HostTensor CastTensor(const HostTensor& tensor, ElementType to) {
  HostTensor cast;
  cast.name = tensor.name;
  cast.type = to;
  cast.shape = tensor.shape;
  const size_t count = tensor.ElementCount();
  cast.data.resize(count * ElementSize(to));
  for (size_t i = 0; i < count; ++i) WriteElement(cast, i, ReadElement(tensor, i));
  return cast;
}

namespace {

using ZipArchive = std::unique_ptr<zip_t, decltype(&zip_discard)>;

ZipArchive OpenNpz(const fs::path& path) {
  const std::string where = path.string();
  if (path.extension() == ".npy") {
    throw UsageError("--input-data '" + where +
                     "' is a single .npy array; save the inputs as an .npz keyed by input name, e.g. "
                     "numpy.savez('inputs.npz', x=array)");
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError("--input-data '" + where + "' is a directory, not an .npz file");
  if (!fs::is_regular_file(path, ec)) throw UsageError("--input-data file '" + where + "' does not exist");
  int error = 0;
  ZipArchive archive(zip_open(path.c_str(), ZIP_RDONLY, &error), &zip_discard);
  if (!archive) throw UsageError("--input-data '" + where + "' is not a valid .npz (zip) archive");
  return archive;
}

// The archive's entries: index, array name (the member name without ".npy") and uncompressed size, read from the
// zip directory without inflating anything.
struct NpzEntry {
  zip_uint64_t index = 0;
  std::string name;
  size_t size = 0;
};

std::vector<NpzEntry> ListEntries(zip_t* archive, const std::string& where) {
  std::vector<NpzEntry> entries;
  const zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    if (zip_stat_index(archive, static_cast<zip_uint64_t>(i), 0, &stat) != 0 || (stat.valid & ZIP_STAT_SIZE) == 0 ||
        (stat.valid & ZIP_STAT_NAME) == 0) {
      throw UsageError("--input-data '" + where + "' is corrupt (entry " + std::to_string(i) + ")");
    }
    std::string name = stat.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    entries.push_back({static_cast<zip_uint64_t>(i), name, static_cast<size_t>(stat.size)});
  }
  return entries;
}

// Reads exactly `bytes` from `file` into `out` (appended); false when the member ends sooner or is corrupt.
bool ReadExactly(zip_file_t* file, size_t bytes, std::vector<std::byte>& out) {
  const size_t start = out.size();
  out.resize(start + bytes);
  size_t done = 0;
  while (done < bytes) {
    const zip_int64_t got = zip_fread(file, out.data() + start + done, bytes - done);
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

// Inflates one array, checking its header before its data: the data is inflated only when the header's shape and
// dtype account for exactly the member's size and that size fits in `budget` bytes (what is left of this machine's
// memory), so a zip bomb or a lying header costs a header's read, not the machine's memory.
HostTensor ReadArray(zip_t* archive, const NpzEntry& entry, size_t& budget, const std::string& where,
                     const std::function<void(const HostTensor&)>& check_header) {
  const std::string context = "--input-data '" + where + "'";
  std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(zip_fopen_index(archive, entry.index, 0), &zip_fclose);
  const auto corrupt = [&]() -> HostTensor {
    throw UsageError(context + " is corrupt: cannot read array '" + entry.name + "'");
  };
  if (!file) return corrupt();
  std::vector<std::byte> blob;
  // The preamble (at most 12 bytes), then the header it announces.
  if (!ReadExactly(file.get(), std::min<size_t>(entry.size, 12), blob)) return corrupt();
  size_t header_end = blob.size();
  if (blob.size() >= 10 && std::memcmp(blob.data(), "\x93NUMPY", 6) == 0) {
    const bool long_header = static_cast<uint8_t>(blob[6]) >= 2 && blob.size() >= 12;
    size_t header_len = static_cast<size_t>(blob[8]) | (static_cast<size_t>(blob[9]) << 8);
    if (long_header) header_len |= (static_cast<size_t>(blob[10]) << 16) | (static_cast<size_t>(blob[11]) << 24);
    header_end = std::min(entry.size, (long_header ? 12 : 10) + std::min(header_len, kMaxNpyHeaderBytes));
  }
  if (header_end > blob.size() && !ReadExactly(file.get(), header_end - blob.size(), blob)) return corrupt();
  NpyHeader header = ParseNpyHeader(entry.name, blob, context);
  if (entry.size < header.data_offset || entry.size - header.data_offset != header.data_bytes) {
    throw UsageError(context + ": array '" + entry.name + "': holds " +
                     std::to_string(entry.size >= header.data_offset ? entry.size - header.data_offset : 0) +
                     " data bytes, its shape needs " + std::to_string(header.data_bytes));
  }
  if (header.data_bytes > budget) {
    throw UsageError(context + ": array '" + entry.name + "' needs " + std::to_string(header.data_bytes >> 20) +
                     " MiB, more than this machine's memory can hold (" + std::to_string(budget >> 20) +
                     " MiB left for arrays)");
  }
  if (check_header) check_header(header.tensor);
  budget -= header.data_bytes;
  blob.erase(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(header.data_offset));
  if (!ReadExactly(file.get(), header.data_bytes - blob.size(), blob)) return corrupt();
  header.tensor.data = std::move(blob);
  return std::move(header.tensor);
}

// Bytes of array data an .npz may hold by default: this machine's memory (unknown: no limit).
size_t ArrayBudget() {
  const uint64_t total_mb = MemoryTotalMb();
  return total_mb == 0 ? std::numeric_limits<size_t>::max() : static_cast<size_t>(total_mb) << 20;
}

}  // namespace

std::vector<HostTensor> ReadNpz(const fs::path& path, size_t max_bytes,
                                const std::function<void(const HostTensor&)>& check_header) {
  const ZipArchive archive = OpenNpz(path);
  size_t budget = max_bytes > 0 ? max_bytes : ArrayBudget();
  std::vector<HostTensor> tensors;
  for (const NpzEntry& entry : ListEntries(archive.get(), path.string())) {
    tensors.push_back(ReadArray(archive.get(), entry, budget, path.string(), check_header));
  }
  return tensors;
}

std::vector<HostTensor> LoadNpzInputs(const fs::path& path, const std::vector<TensorSpec>& inputs,
                                      std::vector<std::string>& warnings) {
  // Names first, from the zip directory: an archive that does not match is refused before anything is inflated.
  std::vector<NpzEntry> entries;
  {
    const ZipArchive archive = OpenNpz(path);
    entries = ListEntries(archive.get(), path.string());
  }
  std::vector<std::string> missing;
  std::vector<std::string> unexpected;
  for (const TensorSpec& input : inputs) {
    bool found = false;
    for (const NpzEntry& entry : entries) found |= entry.name == input.name;
    if (!found) missing.push_back(input.name);
  }
  for (const NpzEntry& entry : entries) {
    bool known = false;
    for (const TensorSpec& input : inputs) known |= entry.name == input.name;
    if (!known) unexpected.push_back(entry.name);
  }
  if (!missing.empty() || !unexpected.empty()) {
    std::string message = "--input-data '" + path.string() + "' does not match the model's inputs";
    if (!missing.empty()) message += "; missing: " + Join(missing, ", ");
    if (!unexpected.empty()) message += "; unexpected: " + Join(unexpected, ", ");
    throw UsageError(message + " (keys must equal input names exactly)");
  }
  // Shapes are checked from each array's header, before its data is inflated.
  const auto check_shape = [&](const HostTensor& array) {
    for (const TensorSpec& input : inputs) {
      if (input.name != array.name) continue;
      // ORT reports no dimensions both for a scalar and for an input whose shape the model leaves out: such an input
      // takes any array (ORT checks a scalar when it runs).
      if (!input.shape_known || input.dims.empty()) return;
      bool fits = array.shape.size() == input.dims.size();
      for (size_t d = 0; fits && d < input.dims.size(); ++d) {
        fits = !input.dims[d].value || *input.dims[d].value < 0 || *input.dims[d].value == array.shape[d];
      }
      if (!fits) {
        std::string got = "[";
        for (size_t d = 0; d < array.shape.size(); ++d) got += (d ? ", " : "") + std::to_string(array.shape[d]);
        throw UsageError("--input-data '" + path.string() + "': array '" + array.name + "' has shape " + got +
                         "], the model expects " + DescribeShape(input));
      }
    }
  };
  std::vector<HostTensor> arrays = ReadNpz(path, 0, check_shape);
  std::vector<HostTensor> ordered;
  for (const TensorSpec& input : inputs) {
    for (HostTensor& array : arrays) {
      if (array.name != input.name) continue;
      if (array.type != input.type && input.type != ElementType::kString && input.type != ElementType::kUndefined) {
        warnings.push_back("--input-data: array '" + array.name + "' is " + std::string(ElementTypeName(array.type)) +
                           ", cast to the model's " + std::string(ElementTypeName(input.type)));
        ordered.push_back(CastTensor(array, input.type));
      } else {
        ordered.push_back(std::move(array));
      }
    }
  }
  return ordered;
}

}  // namespace modelkit::perf
