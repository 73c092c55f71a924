// How a built-in execution provider is appended to ORT session options. Kept free of ORT headers so the EP
// catalog can name it without pulling the ORT API into its users.
#pragma once

namespace modelkit::ort {

enum class AppendMethod {
  kNone,        // the CPU EP: always present, nothing to append
  kByName,      // SessionOptions::AppendExecutionProvider(name, options): WebGPU, QNN, OpenVINO, VitisAI, ...
  kCuda,        // AppendExecutionProvider_CUDA_V2
  kTensorRt,    // AppendExecutionProvider_TensorRT_V2
  kUnsupported  // no entry point usable from Linux (e.g. DirectML) or only reachable as a plugin library
};

}  // namespace modelkit::ort
