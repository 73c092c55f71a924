// Provider options of the simulated NPU, read from the session configuration where ORT puts them
// ("ep.<lower-case ep name>.<key>", from AppendExecutionProvider_V2 options or set directly), plus the session's
// EPContext settings.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <set>
#include <string>

namespace sim_npu {

struct SimNpuOptions {
  std::string device_type = "NPU";  // only NPU is accepted
  int compile_delay_ms = 0;         // sleep this long in every Compile that compiles nodes
  int run_delay_percent = 0;        // after each partition run, wait this share of its run time (100: twice as slow)
  bool fail_compile = false;        // Compile returns an error status
  bool crash_compile = false;       // Compile calls abort(): a crashing compiler
  bool crash_at_exit = false;       // the process aborts when it exits, after the compiled model is written
  std::set<std::string> op_allow;   // when not empty, only these op types are claimed
  std::set<std::string> op_deny;    // op types never claimed
  bool static_shapes = false;       // claim only nodes whose inputs and outputs have every dimension fixed, as a
                                    // real NPU compiler does

  // Session EPContext settings (ep.context_enable, ep.context_embed_mode, ep.context_file_path), and whether the
  // session only compiles (session.compile_only, set by the compile API): then nothing is loaded to run.
  bool context_enable = false;
  bool compile_only = false;
  bool context_embed = true;
  std::string context_file_path;
};

// Reads the options for `ep_name` from `session_options`. Throws Ort::Exception (ORT_INVALID_ARGUMENT) naming the
// key for an unsupported device_type or a value that is not a number or a 0/1 flag.
SimNpuOptions ReadOptions(const std::string& ep_name, Ort::ConstSessionOptions session_options);

}  // namespace sim_npu
