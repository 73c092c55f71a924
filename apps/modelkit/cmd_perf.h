// `modelkit perf`'s options, shared by the ONNX path (cmd_perf.cpp) and the genai path (perf_genai.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "ep_flags.h"
#include "genai_flags.h"
#include "modelkit/perf/genai_benchmark.h"
#include "modelkit/perf/onnx_benchmark.h"

namespace modelkit::app {

struct GenaiPerfFlags {
  std::string prompt = perf::kDefaultGenaiPrompt;
  std::string prompt_file;
  bool apply_template = false;  // neither flag: apply when the bundle has a chat template
  bool no_apply_template = false;
  int64_t max_new_tokens = 128;
  bool ignore_eos = false;
  GenaiCompileFlags compile;
};

struct PerfCommandOptions {
  perf::OnnxPerfOptions onnx;  // also holds --device, --ep, --iterations, --warmup, --memory
  GenaiPerfFlags genai;
  std::string model;
  std::string runtime = "auto";
  std::vector<std::string> ep_options;
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
