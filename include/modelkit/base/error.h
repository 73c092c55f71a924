// Errors that reach the user, with the process exit code each one maps to.
#pragma once

#include <stdexcept>
#include <string>

namespace modelkit {

// Documented process exit codes (docs/cli.md). main() maps every modelkit::Error to its code.
enum class ExitCode : int {
  kOk = 0,
  kRuntimeFailure = 1,   // load, inference or I/O failed
  kUsage = 2,            // bad or conflicting flags, unknown/unavailable EP or device, missing model
  kInvalidModel = 3,     // unparsable ONNX, bad genai_config.json, bad tokenizer
  kInferenceFailed = 4,  // inference failed after a successful load
  kInterrupted = 130,    // stopped by SIGINT/SIGTERM at a safe point (128 + SIGINT, as shells report it)
};

// An error meant for the user: a one-line message (without the "error: " prefix) that says what is wrong, where,
// and what to do, plus the exit code it maps to. Printed once, by main().
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// Shorthands for the common kinds.
inline Error UsageError(const std::string& message) { return Error(ExitCode::kUsage, message); }
inline Error RuntimeError(const std::string& message) { return Error(ExitCode::kRuntimeFailure, message); }

}  // namespace modelkit
