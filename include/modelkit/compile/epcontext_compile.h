// Compiling an ONNX model into an EPContext model for an EPContext-capable EP (ORT's compile API), writing the
// result atomically: everything is produced in a temporary folder beside the output and moved into place only when
// the compile succeeded (context binaries first, the model last).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "modelkit/device/resolution.h"

namespace modelkit::compile {

struct EpContextCompileOptions {
  std::filesystem::path source;
  std::filesystem::path output;                   // the EPContext model to write
  device::EpSelection ep;                         // must be EPContext-capable
  std::map<std::string, std::string> ep_options;  // forwarded to the EP
  bool embed = false;                             // true: context inside the model; false: a .bin beside it
  bool overwrite = false;
};

struct EpContextCompileResult {
  std::vector<std::filesystem::path> written;  // the model last
  double seconds = 0;
};

// Throws UsageError when the source is missing or already an EPContext model, the EP cannot compile, or the output
// exists without `overwrite`; Error(kInvalidModel) when ORT cannot parse the source; RuntimeError (with the EP's
// message) when compilation fails or compiles nothing. Nothing is left behind on failure.
EpContextCompileResult CompileToEpContext(const EpContextCompileOptions& options);

// The UsageErrors of CompileToEpContext that need no ORT (source, EP, output), for a caller that compiles elsewhere.
void CheckEpContextCompileRequest(const EpContextCompileOptions& options);

// Removes staging folders in `dir` left by compile processes that no longer run (killed mid-compile).
void RemoveAbandonedCompileFolders(const std::filesystem::path& dir);

// True when the ONNX file holds a node of type EPContext (looked up as NodeProto.op_type's encoded bytes).
bool ContainsEpContextNode(const std::filesystem::path& model);

}  // namespace modelkit::compile
