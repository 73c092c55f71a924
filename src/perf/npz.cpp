#include "npz.h"

#include <zip.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <regex>

#include "modelkit/base/error.h"
#include "modelkit/base/float16.h"
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

// Parses one .npy blob (format versions 1-3).
HostTensor ParseNpy(const std::string& name, const std::vector<std::byte>& blob, const std::string& where) {
  auto fail = [&](const std::string& what) -> HostTensor {
    throw UsageError(where + ": array '" + name + "': " + what);
  };
  if (blob.size() < 10 || std::memcmp(blob.data(), "\x93NUMPY", 6) != 0) return fail("not a .npy array");
  const auto major = static_cast<uint8_t>(blob[6]);
  size_t header_len = 0;
  size_t offset = 0;
  if (major == 1) {
    header_len = static_cast<size_t>(blob[8]) | (static_cast<size_t>(blob[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (blob.size() < 12) return fail("truncated header");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(blob[8 + static_cast<size_t>(i)]) << (8 * i);
    offset = 12;
  } else {
    return fail("unsupported .npy version " + std::to_string(major));
  }
  if (offset + header_len > blob.size()) return fail("truncated header");
  const std::string header(reinterpret_cast<const char*>(blob.data()) + offset, header_len);
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
  HostTensor tensor;
  tensor.name = name;
  tensor.type = type->second;
  for (const std::string& piece : Split(std::string(match[1]), ',')) {
    const std::string dim = Trim(piece);
    if (dim.empty()) continue;
    try {
      tensor.shape.push_back(std::stoll(dim));
    } catch (const std::exception&) {
      return fail("bad shape '" + std::string(match[1]) + "'");
    }
  }
  const size_t bytes = tensor.ElementCount() * ElementSize(tensor.type);
  const size_t data_offset = offset + header_len;
  if (blob.size() - data_offset != bytes) {
    return fail("holds " + std::to_string(blob.size() - data_offset) + " data bytes, its shape needs " +
                std::to_string(bytes));
  }
  tensor.data.assign(blob.begin() + static_cast<std::ptrdiff_t>(data_offset), blob.end());
  return tensor;
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

std::vector<HostTensor> ReadNpz(const fs::path& path) {
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
  std::unique_ptr<zip_t, decltype(&zip_discard)> archive(zip_open(path.c_str(), ZIP_RDONLY, &error), &zip_discard);
  if (!archive) throw UsageError("--input-data '" + where + "' is not a valid .npz (zip) archive");
  std::vector<HostTensor> tensors;
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    zip_stat_t stat;
    if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &stat) != 0) {
      throw UsageError("--input-data '" + where + "' is corrupt (entry " + std::to_string(i) + ")");
    }
    std::string name = stat.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    std::vector<std::byte> blob(stat.size);
    std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(
        zip_fopen_index(archive.get(), static_cast<zip_uint64_t>(i), 0), &zip_fclose);
    if (!file || zip_fread(file.get(), blob.data(), stat.size) != static_cast<zip_int64_t>(stat.size)) {
      throw UsageError("--input-data '" + where + "' is corrupt: cannot read array '" + name + "'");
    }
    tensors.push_back(ParseNpy(name, blob, "--input-data '" + where + "'"));
  }
  return tensors;
}

std::vector<HostTensor> LoadNpzInputs(const fs::path& path, const std::vector<TensorSpec>& inputs,
                                      std::vector<std::string>& warnings) {
  std::vector<HostTensor> arrays = ReadNpz(path);
  std::vector<std::string> missing;
  std::vector<std::string> unexpected;
  for (const TensorSpec& input : inputs) {
    bool found = false;
    for (const HostTensor& array : arrays) found |= array.name == input.name;
    if (!found) missing.push_back(input.name);
  }
  for (const HostTensor& array : arrays) {
    bool known = false;
    for (const TensorSpec& input : inputs) known |= array.name == input.name;
    if (!known) unexpected.push_back(array.name);
  }
  if (!missing.empty() || !unexpected.empty()) {
    std::string message = "--input-data '" + path.string() + "' does not match the model's inputs";
    if (!missing.empty()) message += "; missing: " + Join(missing, ", ");
    if (!unexpected.empty()) message += "; unexpected: " + Join(unexpected, ", ");
    throw UsageError(message + " (keys must equal input names exactly)");
  }
  std::vector<HostTensor> ordered;
  for (const TensorSpec& input : inputs) {
    for (HostTensor& array : arrays) {
      if (array.name != input.name) continue;
      if (input.shape_known) {
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
