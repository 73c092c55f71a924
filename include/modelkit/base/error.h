// Errors that reach the user, with the process exit code each one maps to.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

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
  Error(ExitCode code, const std::string& message, std::string detail = "")
      : std::runtime_error(message), code_(code), detail_(std::move(detail)) {}
  ExitCode code() const noexcept { return code_; }
  // What a library said in full when the message gives a cleaned-up part of it (ONNX Runtime's text with its source
  // locations); shown under -v only. Empty when there is nothing more.
  const std::string& detail() const noexcept { return detail_; }

 private:
  ExitCode code_;
  std::string detail_;
};

// Shorthands for the common kinds.
inline Error UsageError(const std::string& message) { return Error(ExitCode::kUsage, message); }
inline Error RuntimeError(const std::string& message) { return Error(ExitCode::kRuntimeFailure, message); }

}  // namespace modelkit
