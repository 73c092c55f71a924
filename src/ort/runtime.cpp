#include "modelkit/ort/runtime.h"

#include <mutex>

#include "modelkit/base/error.h"

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
  // Fatal only: failures reach the user once, as modelkit errors carrying ORT's message, not as extra log lines.
  static Ort::Env env(ORT_LOGGING_LEVEL_FATAL, "modelkit");
  return env;
}

std::string RuntimeVersion() { return OrtGetApiBase()->GetVersionString(); }

}  // namespace modelkit::ort
