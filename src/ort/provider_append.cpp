#include "modelkit/ort/provider_append.h"

#include <vector>

#include "modelkit/base/error.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::ort {
namespace {

// Splits a map into the parallel key/value pointer arrays the V2 provider-option APIs take.
struct OptionArrays {
  std::vector<const char*> keys;
  std::vector<const char*> values;
  explicit OptionArrays(const ProviderOptions& options) {
    for (const auto& [key, value] : options) {
      keys.push_back(key.c_str());
      values.push_back(value.c_str());
    }
  }
};

void AppendCuda(Ort::SessionOptions& options, const ProviderOptions& provider_options) {
  const OrtApi& api = Ort::GetApi();
  OrtCUDAProviderOptionsV2* cuda = nullptr;
  Ort::ThrowOnError(api.CreateCUDAProviderOptions(&cuda));
  std::unique_ptr<OrtCUDAProviderOptionsV2, decltype(api.ReleaseCUDAProviderOptions)> owner(
      cuda, api.ReleaseCUDAProviderOptions);
  OptionArrays arrays(provider_options);
  Ort::ThrowOnError(api.UpdateCUDAProviderOptions(cuda, arrays.keys.data(), arrays.values.data(), arrays.keys.size()));
  options.AppendExecutionProvider_CUDA_V2(*cuda);
}

void AppendTensorRt(Ort::SessionOptions& options, const ProviderOptions& provider_options) {
  const OrtApi& api = Ort::GetApi();
  OrtTensorRTProviderOptionsV2* trt = nullptr;
  Ort::ThrowOnError(api.CreateTensorRTProviderOptions(&trt));
  std::unique_ptr<OrtTensorRTProviderOptionsV2, decltype(api.ReleaseTensorRTProviderOptions)> owner(
      trt, api.ReleaseTensorRTProviderOptions);
  OptionArrays arrays(provider_options);
  Ort::ThrowOnError(
      api.UpdateTensorRTProviderOptions(trt, arrays.keys.data(), arrays.values.data(), arrays.keys.size()));
  options.AppendExecutionProvider_TensorRT_V2(*trt);
}

}  // namespace

void AppendBuiltInProvider(Ort::SessionOptions& options, AppendMethod method, const std::string& append_name,
                           const ProviderOptions& provider_options) {
  EnsureApi();
  switch (method) {
    case AppendMethod::kNone:
      return;
    case AppendMethod::kByName:
      options.AppendExecutionProvider(
          append_name, std::unordered_map<std::string, std::string>(provider_options.begin(), provider_options.end()));
      return;
    case AppendMethod::kCuda:
      AppendCuda(options, provider_options);
      return;
    case AppendMethod::kTensorRt:
      AppendTensorRt(options, provider_options);
      return;
    case AppendMethod::kUnsupported:
      break;
  }
  throw RuntimeError("execution provider '" + append_name + "' cannot be appended on Linux");
}

}  // namespace modelkit::ort
