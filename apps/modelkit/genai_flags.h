// Flags of the commands that run a genai bundle (`generate`, `perf --runtime genai`): the EP override and the
// EPContext compile, turned into a session::GenaiSessionOptions.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <string>

#include "ep_flags.h"
#include "modelkit/session/genai_session.h"

namespace modelkit::app {

struct GenaiCompileFlags {
  bool compile = false;
  double compile_timeout_s = std::chrono::duration<double>(compile::CompilerCommand{}.timeout).count();

  void Bind(CLI::App& command);
};

// Relative --ep-catalog/--ep-library paths are forwarded as given: the compile child runs in the same directory.
// The session's warnings print as "warning: ..." lines on stderr as they arise (clear on_warning to silence them).
session::GenaiSessionOptions MakeGenaiSessionOptions(const std::string& bundle, const std::string& ep,
                                                     device::DeviceRequest device, const GenaiCompileFlags& compile,
                                                     const EpLibraryFlags& ep_flags);

}  // namespace modelkit::app
