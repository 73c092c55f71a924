// Copying tensor contents between OrtValues, strings included (their elements are not plain bytes).
#pragma once

#include <onnxruntime_cxx_api.h>

namespace sim_npu {

// Copies the elements of `source` into `target`, which has the same element type and shape.
void CopyTensorData(const OrtValue* source, OrtValue* target);

// A new CPU tensor holding a copy of `source` (any element type).
Ort::Value CloneTensor(const OrtValue* source);

}  // namespace sim_npu
