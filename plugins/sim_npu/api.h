// The ONNX Runtime API tables the simulated NPU uses, and the conversion of C++ exceptions into the OrtStatus*
// results every plugin entry point must return (an exception must never cross into ORT).
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>

namespace sim_npu {

// API version requested from the runtime: the headers' version, capped at the runtime the project ships (1.30),
// whose API table is a prefix of any newer header's.
inline constexpr uint32_t kApiVersion = ORT_API_VERSION < 30 ? ORT_API_VERSION : 30;

// Initialises the C++ wrapper (compiled with ORT_API_MANUAL_INIT) from the OrtApiBase ORT hands the library.
// Returns false when the runtime cannot serve kApiVersion.
bool InitApis(const OrtApiBase* api_base);

const OrtApi& OrtApiTable();
const OrtEpApi& EpApi();

// A new OrtStatus with `code` and `message`; ORT takes ownership.
OrtStatus* MakeStatus(OrtErrorCode code, const std::string& message);

// Runs `body` and turns any exception into a returned OrtStatus (nullptr when `body` succeeds).
template <typename Body>
OrtStatus* Guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Ort::Exception& error) {
    return MakeStatus(error.GetOrtErrorCode(), error.what());
  } catch (const std::exception& error) {
    return MakeStatus(ORT_EP_FAIL, error.what());
  } catch (...) {
    return MakeStatus(ORT_EP_FAIL, "unknown error in the simulated NPU");
  }
}

}  // namespace sim_npu
