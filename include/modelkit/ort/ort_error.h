// Where ONNX Runtime's failures become modelkit errors: every Ort::Exception (or failed Ort::Status) is translated
// here, where it enters our code, into one modelkit::Error line "<context>: <ORT's message>" with the exit code
// the caller chose.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>
#include <string_view>

#include "modelkit/base/error.h"

namespace modelkit::ort {

// Throws Error(code, context + ": " + ORT's message cleaned by CleanOrtMessage), with ORT's whole message as the
// error's detail when cleaning left something out. `context` says what failed, e.g. "cannot load 'm.onnx'"; a
// non-empty `hint` (what the user can do about it) follows after "; ".
[[noreturn]] void ThrowOrtError(const Ort::Exception& error, ExitCode code, std::string_view context,
                                std::string_view hint = {});
[[noreturn]] void ThrowOrtError(const Ort::Status& status, ExitCode code, std::string_view context);

// The exit code of a model that ORT failed to load: kInvalidModel when the model is at fault (invalid protobuf,
// graph or argument; no model; an operator without a kernel; an IR version, opset or external data ORT refuses),
// kUsage for a missing file, kRuntimeFailure otherwise (e.g. an EP that fails to initialise).
ExitCode LoadFailureExitCode(const Ort::Exception& error);

// ORT's message shortened to what a user needs to know why something cannot run: the first line, without ORT's
// source-location prefix ("/onnxruntime_src/...cc:123 func [ONNXRuntimeError] : 1 : FAIL : "). For recording a
// reason (e.g. why an EP is unusable) instead of throwing.
std::string OrtErrorReason(const Ort::Exception& error);

// The same for any ORT message: its first line without the error-code tag and without ORT's source locations and
// function signatures (e.g. "/onnxruntime_src/onnxruntime/core/graph/model.cc:187 onnxruntime::Model::Model(...)"),
// which mean nothing to a user. ThrowOrtError applies it.
std::string CleanOrtMessage(std::string_view message);

}  // namespace modelkit::ort
