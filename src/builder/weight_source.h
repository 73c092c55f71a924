// Where the builder's weights come from: a checkpoint or a random generator, tensor by tensor, as fp32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace modelkit::builder {

class WeightSource {
 public:
  virtual ~WeightSource() = default;

  // Whether the source holds `name` (Hugging Face tensor name).
  virtual bool Contains(const std::string& name) const = 0;

  // A row-major fp32 copy of `name`, which must have exactly `shape`. Throws Error(kInvalidModel) naming the file
  // and tensor when it is missing, misshaped, truncated or of an unsupported dtype.
  virtual std::vector<float> Load(const std::string& name, const std::vector<int64_t>& shape) const = 0;
};

}  // namespace modelkit::builder
