#include "modelkit/compile/epcontext_compile.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>

#include <fstream>
#include <iterator>

#include "modelkit/base/atomic_file.h"
#include "modelkit/base/error.h"
#include "modelkit/base/temp_dir.h"
#include "modelkit/device/session_ep.h"
#include "modelkit/ort/ort_error.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::compile {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStagingPrefix = ".modelkit-compile-";

}  // namespace

void RemoveAbandonedCompileFolders(const fs::path& dir) { RemoveFoldersOfEndedProcesses(dir, kStagingPrefix); }

bool ContainsEpContextNode(const fs::path& model) {
  std::ifstream in(model, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // NodeProto field 4 (op_type), wire type 2, length 9: 0x22 0x09 "EPContext".
  return bytes.find(std::string("\x22\x09"
                                "EPContext",
                                11)) != std::string::npos;
}

void CheckEpContextCompileRequest(const EpContextCompileOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(options.source, ec)) {
    throw UsageError("ONNX file not found: '" + options.source.string() + "' (-m/--model)");
  }
  if (!options.ep.ep->ep_context) {
    throw UsageError("EP '" + options.ep.ep->name + "' does not support EPContext compilation");
  }
  if (ContainsEpContextNode(options.source)) {
    throw UsageError("'" + options.source.string() + "' is already an EPContext model; compile its source model");
  }
  if (fs::equivalent(options.source, options.output, ec)) {
    throw UsageError("the output '" + options.output.string() +
                     "' is the source model itself; write the EPContext model to another path (-o)");
  }
  CheckOutputFile(options.output, options.overwrite);
}

EpContextCompileResult CompileToEpContext(const EpContextCompileOptions& options) {
  CheckEpContextCompileRequest(options);
  std::error_code ec;
  const fs::path out_dir = options.output.has_parent_path() ? options.output.parent_path() : fs::path(".");
  MadeFolders made_folders(out_dir);
  RemoveAbandonedCompileFolders(out_dir);
  // Named after this process: a killed process's folder is removed by RemoveAbandonedCompileFolders.
  const std::optional<ScopedTempDir> staging =
      ScopedTempDir::Create(out_dir, kStagingPrefix + std::to_string(getpid()) + "-");
  if (!staging) throw RuntimeError("cannot create a temporary folder in '" + out_dir.string() + "'");
  const fs::path staged_model = staging->path() / options.output.filename();

  const device::EpRow& ep = *options.ep.ep;
  Ort::Env& env = ort::SharedEnv();
  Ort::SessionOptions session_options;
  device::AppendSelectedEp(session_options, options.ep, options.ep_options);
  Ort::ModelCompilationOptions compile(env, session_options);
  compile.SetInputModelPath(options.source.c_str());
  compile.SetOutputModelPath(staged_model.c_str());
  compile.SetEpContextEmbedMode(options.embed);
  compile.SetFlags(OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED);
  const auto start = std::chrono::steady_clock::now();
  const Ort::Status status = Ort::CompileModel(env, compile);
  EpContextCompileResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!status.IsOK()) {
    const OrtErrorCode code = status.GetErrorCode();
    const bool model_at_fault = code == ORT_INVALID_PROTOBUF || code == ORT_INVALID_GRAPH || code == ORT_NO_MODEL;
    ort::ThrowOrtError(status, model_at_fault ? ExitCode::kInvalidModel : ExitCode::kRuntimeFailure,
                       "compiling '" + options.source.string() + "' for " + ep.name + " failed");
  }
  // Context binaries first, the model last: a reader that finds the model finds what it references.
  std::vector<fs::path> produced;
  for (const fs::directory_entry& entry : fs::directory_iterator(staging->path())) {
    if (entry.path() != staged_model) produced.push_back(entry.path());
  }
  produced.push_back(staged_model);
  for (const fs::path& file : produced) {
    const fs::path target = out_dir / file.filename();
    fs::rename(file, target, ec);
    if (ec)
      throw RuntimeError("cannot move the compiled '" + file.filename().string() + "' into '" + out_dir.string() +
                         "': " + ec.message());
    result.written.push_back(target);
  }
  made_folders.Keep();
  return result;
}

}  // namespace modelkit::compile
