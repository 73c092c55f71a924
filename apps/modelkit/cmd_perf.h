// `modelkit perf`'s options, shared by the ONNX path (cmd_perf.cpp) and the genai path (perf_genai.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "build_flags.h"
#include "ep_flags.h"
#include "genai_flags.h"
#include "modelkit/report/genai_run.h"
#include "modelkit/report/onnx_run.h"

namespace modelkit::app {

// Flags of `perf` on a bundle that are not fields of report::GenaiPerfOptions.
struct GenaiPerfFlags {
  std::string prompt_file;
  std::string prompt_ids;       // --prompt-ids, comma-separated
  std::string prompt_tokens;    // --prompt-tokens: a sweep's prompt lengths, comma-separated
  std::string gen_tokens;       // --gen-tokens: a sweep's generation lengths, comma-separated
  bool apply_template = false;  // neither flag: apply when the bundle has a chat template
  bool no_apply_template = false;
  GenaiCompileFlags compile;
  CheckpointFlags checkpoint;  // -m as a checkpoint or model id
};

struct PerfCommandOptions {
  report::OnnxPerfOptions onnx;    // also holds --ep and --memory for both runtimes
  report::GenaiPerfOptions genai;  // --prompt, --max-new-tokens, --ignore-eos
  GenaiPerfFlags genai_flags;
  // Flags whose default depends on the runtime (the defaults are those of `onnx` and `genai`); nullopt: not typed.
  std::optional<device::DeviceRequest> device;
  std::optional<int> iterations;
  std::optional<int> warmup;
  std::string model;
  std::string runtime = "auto";
  std::vector<std::string> ep_options;
  std::string batch_sizes = "1";  // --batch-size: one size, or a comma-separated sweep
  std::string output;
  bool overwrite = false;
  bool monitor = false;
  std::string format = "text";
  double duration = 0;
  int quiet = 0;
  int verbose = 0;
  EpLibraryFlags ep_flags;
};

// "onnx" or "genai" from --runtime and -m (auto: genai iff -m is a directory with genai_config.json).
std::string ResolveRuntime(const std::string& runtime, const std::filesystem::path& model);

// `perf` on a genai bundle. `command` tells which flags were typed.
int RunGenaiPerf(PerfCommandOptions& options, const CLI::App& command);

}  // namespace modelkit::app
