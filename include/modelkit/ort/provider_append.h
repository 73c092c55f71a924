// Appending an execution provider to session options, whichever ORT entry point that EP needs.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <map>
#include <string>

#include "modelkit/ort/append_method.h"

namespace modelkit::ort {

using ProviderOptions = std::map<std::string, std::string>;

// Appends a built-in EP. `append_name` is the spelling ORT's by-name entry point expects ("WebGPU").
// Throws Ort::Exception when ORT refuses (e.g. the provider library is missing) and modelkit::Error for
// kUnsupported.
void AppendBuiltInProvider(Ort::SessionOptions& options, AppendMethod method, const std::string& append_name,
                           const ProviderOptions& provider_options);

}  // namespace modelkit::ort
