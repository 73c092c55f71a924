#include "modelkit/ort/runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "modelkit/base/error.h"
#include "modelkit/base/host_info.h"
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

int DefaultIntraOpThreads() { return std::min(PhysicalCoresAvailable(), kMaxDefaultIntraOpThreads); }

Ort::Env& SharedEnv() {
  EnsureApi();
  static Ort::Env env = [] {
    Ort::ThreadingOptions pool;
    pool.SetGlobalIntraOpNumThreads(DefaultIntraOpThreads());
    pool.SetGlobalInterOpNumThreads(1);
    pool.SetGlobalSpinControl(1);
    // Warnings and above go to modelkit's log function (ort_log.h), never to ORT's own console sink.
    return Ort::Env(pool, &LogFromOrt, nullptr, ORT_LOGGING_LEVEL_WARNING, "modelkit");
  }();
  return env;
}

std::string RuntimeVersion() { return OrtGetApiBase()->GetVersionString(); }

std::string RuntimeLibraryPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&OrtGetApiBase), &info) == 0 || info.dli_fname == nullptr) return "";
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? info.dli_fname : path.string();
}

}  // namespace modelkit::ort
