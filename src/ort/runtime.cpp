#include "modelkit/ort/runtime.h"

#include <mutex>

#include "modelkit/base/error.h"
#include "modelkit/ort/ort_log.h"

namespace modelkit::ort {

void EnsureApi() {
  static std::once_flag once;
  static const OrtApi* api = nullptr;
  std::call_once(once, [] {
    api = OrtGetApiBase()->GetApi(kRequestedApiVersion);
    if (api != nullptr) Ort::InitApi(api);
  });
  if (api == nullptr) {
    throw RuntimeError("the ONNX Runtime library (version " + std::string(OrtGetApiBase()->GetVersionString()) +
                       ") does not provide API version " + std::to_string(kRequestedApiVersion) +
                       "; rebuild after running scripts/fetch_onnxruntime.sh");
  }
}

Ort::Env& SharedEnv() {
  EnsureApi();
  // Warnings and above go to modelkit's log function (ort_log.h), never to ORT's own console sink.
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "modelkit", &LogFromOrt, nullptr);
  return env;
}

std::string RuntimeVersion() { return OrtGetApiBase()->GetVersionString(); }

}  // namespace modelkit::ort
