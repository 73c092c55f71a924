// Binding the resolved EP to an ORT session: the one place that knows how each kind of catalog row is appended.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <map>
#include <string>

#include "modelkit/device/resolution.h"

namespace modelkit::device {

// Appends `selection.ep` (on `selection.device`) with `provider_options` to `options`:
//  - plugin rows: ORT's EP devices of that EP on that device class (AppendExecutionProvider_V2);
//  - EPs ORT reports in GetEpDevices: the same, on the selected device class;
//  - other built-ins: their own entry point (CUDA/TensorRT V2 options, or by name); the CPU EP needs nothing.
// A row whose `device_type_option` is set gets device_type=<NPU|GPU|CPU> unless the options already have one.
// Throws modelkit::Error (runtime failure) naming the EP when ORT refuses.
void AppendSelectedEp(Ort::SessionOptions& options, const EpSelection& selection,
                      std::map<std::string, std::string> provider_options);

}  // namespace modelkit::device
