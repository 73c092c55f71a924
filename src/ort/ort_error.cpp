#include "modelkit/ort/ort_error.h"

#include "modelkit/base/strings.h"

namespace modelkit::ort {

void ThrowOrtError(const Ort::Exception& error, ExitCode code, std::string_view context) {
  throw Error(code, std::string(context) + ": " + error.what());
}

void ThrowOrtError(const Ort::Status& status, ExitCode code, std::string_view context) {
  throw Error(code, std::string(context) + ": " + status.GetErrorMessage());
}

ExitCode LoadFailureExitCode(const Ort::Exception& error) {
  switch (error.GetOrtErrorCode()) {
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH:
    case ORT_NO_MODEL:
    case ORT_INVALID_ARGUMENT:
      return ExitCode::kInvalidModel;
    case ORT_NO_SUCHFILE:
      return ExitCode::kUsage;
    default:
      return ExitCode::kRuntimeFailure;
  }
}

std::string OrtErrorReason(const Ort::Exception& error) {
  const std::string_view message = error.what();
  std::string text(message.substr(0, message.find('\n')));
  if (const size_t tag = text.find("[ONNXRuntimeError] : "); tag != std::string::npos) {
    size_t at = tag;
    for (int separators = 0; separators < 3 && at != std::string::npos; ++separators) {
      at = text.find(" : ", at + 1);
      if (separators == 2 && at != std::string::npos) text = text.substr(at + 3);
    }
  } else if (const size_t check = text.find(" was false. ");
             text.rfind("/onnxruntime_src/", 0) == 0 && check != std::string::npos) {
    text = text.substr(check + 12);
  }
  return Trim(text);
}

}  // namespace modelkit::ort
