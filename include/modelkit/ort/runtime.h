// The process-wide ONNX Runtime: API initialisation, the shared environment, and version information.
// Every use of the ORT C++ API goes through here first, because the C++ wrapper is compiled with
// ORT_API_MANUAL_INIT (the headers may be newer than the runtime; see cmake/OnnxRuntime.cmake).
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>

#include "modelkit/ort/ort_error.h"  // ORT failures become modelkit errors there

namespace modelkit::ort {

// The ORT API version this build requests from the runtime: the headers' version, capped at the runtime
// we ship against (an older runtime's API table is a prefix of a newer header's).
inline constexpr uint32_t kRequestedApiVersion = ORT_API_VERSION < 30 ? ORT_API_VERSION : 30;

// Initialises the C++ wrapper's API table once. Throws modelkit::Error (runtime failure) when the loaded
// libonnxruntime cannot serve kRequestedApiVersion. Safe to call from any thread, any number of times.
void EnsureApi();

// The most intra-op threads a session gets when its config names none: past this, a batch-1 decode step's kernels
// are too small to split further and thread synchronisation outweighs the gain.
inline constexpr int kMaxDefaultIntraOpThreads = 16;

// Intra-op threads for a session whose config sets no `intra_op_num_threads`: one per physical core this process may
// run on (SMT siblings share a core's memory bandwidth and matmul units, so they add little to memory-bound decoding),
// at most kMaxDefaultIntraOpThreads. ORT's own default (0) comes from its own CPU probe, which on some virtual
// machines finds a single core and runs every kernel on one thread (docs/performance.md).
int DefaultIntraOpThreads();

// The one Ort::Env of the process (id "modelkit"), created on first use; its log goes through ort_log.h. It holds
// the process's shared intra-op thread pool: DefaultIntraOpThreads() threads whose idle workers spin, used by the
// sessions made with SessionOptions::DisablePerSessionThreads() (the stages of a pipeline, which run one after
// another and so never need two pools at once). Every other session keeps a pool of its own.
Ort::Env& SharedEnv();

// Version string of the loaded runtime library, e.g. "1.30.0".
std::string RuntimeVersion();

// The file the runtime library was loaded from (empty when the loader cannot say).
std::string RuntimeLibraryPath();

}  // namespace modelkit::ort
