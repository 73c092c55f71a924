#include "modelkit/ort/ort_error.h"

#include <regex>

#include "modelkit/base/strings.h"

namespace modelkit::ort {

std::string CleanOrtMessage(std::string_view message) {
  std::string text(message.substr(0, message.find('\n')));
  // "[ONNXRuntimeError] : 1 : FAIL : rest" -> "rest"
  if (const size_t tag = text.find("[ONNXRuntimeError] : "); tag != std::string::npos) {
    size_t at = tag;
    for (int separators = 0; separators < 3 && at != std::string::npos; ++separators) at = text.find(" : ", at + 1);
    if (at != std::string::npos) text = text.substr(0, tag) + text.substr(at + 3);
  }
  // "/onnxruntime_src/path/file.cc:187 ns::Function(args) rest" -> "rest", wherever it appears.
  for (size_t at = text.find("/onnxruntime_src/"); at != std::string::npos; at = text.find("/onnxruntime_src/", at)) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) {
      text.erase(at);
      break;
    }
    const size_t open = text.find('(', end);
    if (open != std::string::npos) {
      int depth = 0;
      size_t close = open;
      for (; close < text.size(); ++close) {
        if (text[close] == '(') ++depth;
        if (text[close] == ')' && --depth == 0) break;
      }
      if (close < text.size()) end = close + 1;
    }
    while (end < text.size() && text[end] == ' ') ++end;
    text.erase(at, end - at);
  }
  if (const size_t check = text.find(" was false. "); check != std::string::npos) text = text.substr(check + 12);
  // Source locations without the build path ("tensorprotoutils.cc:1763 GetExtDataFromTensorProto ") and the
  // wrappers ORT puts around a load failure, which the caller's context already says.
  static const std::regex kNoise(
      R"(\b[\w.-]+\.(cc|cpp|h):\d+ [\w:~<>]+(\([^)]*\))? ?|Load model from \S+ failed: ?|Exception during (loading|initialization): ?)");
  text = std::regex_replace(text, kNoise, "");
  return Trim(text);
}

namespace {

[[noreturn]] void ThrowCleaned(const std::string& raw, ExitCode code, std::string_view context,
                               std::string_view hint = {}) {
  const std::string clean = CleanOrtMessage(raw);
  const std::string advice = hint.empty() ? std::string() : "; " + std::string(hint);
  throw Error(code, std::string(context) + ": " + clean + advice, clean == Trim(raw) ? "" : Trim(raw));
}

}  // namespace

void ThrowOrtError(const Ort::Exception& error, ExitCode code, std::string_view context, std::string_view hint) {
  ThrowCleaned(error.what(), code, context, hint);
}

void ThrowOrtError(const Ort::Status& status, ExitCode code, std::string_view context) {
  ThrowCleaned(status.GetErrorMessage(), code, context);
}

ExitCode LoadFailureExitCode(const Ort::Exception& error) {
  switch (error.GetOrtErrorCode()) {
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH:
    case ORT_NO_MODEL:
    case ORT_INVALID_ARGUMENT:
    case ORT_NOT_IMPLEMENTED:  // an operator (or opset) this runtime has no kernel for
      return ExitCode::kInvalidModel;
    case ORT_NO_SUCHFILE:
      return ExitCode::kUsage;
    default:
      break;
  }
  // Parsing and checking the model (IR version, opsets, external data) fail with the generic code; ORT says so.
  const std::string_view message = error.what();
  return message.find("Load model from") != std::string_view::npos ||
                 message.find("Unsupported model IR version") != std::string_view::npos ||
                 message.find("opset") != std::string_view::npos ||
                 message.find("external data") != std::string_view::npos ||
                 message.find("External data") != std::string_view::npos ||
                 message.find("External initializer") != std::string_view::npos
             ? ExitCode::kInvalidModel
             : ExitCode::kRuntimeFailure;
}

std::string OrtErrorReason(const Ort::Exception& error) { return CleanOrtMessage(error.what()); }

}  // namespace modelkit::ort
