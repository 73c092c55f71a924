// ORT failures as modelkit errors: one message shape, the caller's exit code, and the short reason for records.
#include "modelkit/ort/ort_error.h"

#include <gtest/gtest.h>

#include "modelkit/ort/runtime.h"

namespace modelkit::ort {
namespace {

Error Thrown(const Ort::Exception& error, ExitCode code, std::string_view context) {
  try {
    ThrowOrtError(error, code, context);
  } catch (const Error& e) {
    return e;
  }
  return Error(ExitCode::kOk, "nothing thrown");
}

TEST(ThrowOrtError, ContextThenOrtMessageWithTheCallersCode) {
  const Ort::Exception error("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : bad shape", ORT_INVALID_ARGUMENT);
  const Error thrown = Thrown(error, ExitCode::kInferenceFailed, "inference failed on CPUExecutionProvider");
  EXPECT_EQ(thrown.code(), ExitCode::kInferenceFailed);
  EXPECT_STREQ(thrown.what(), "inference failed on CPUExecutionProvider: bad shape");
  EXPECT_EQ(thrown.detail(), "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : bad shape") << "the whole message, for -v";
  EXPECT_EQ(Thrown(error, ExitCode::kRuntimeFailure, "cannot use EP 'x'").code(), ExitCode::kRuntimeFailure);
}

TEST(ThrowOrtError, FailedStatus) {
  EnsureApi();
  const Ort::Status status("no nodes compiled", ORT_FAIL);
  try {
    ThrowOrtError(status, ExitCode::kInvalidModel, "compiling 'm.onnx' for X failed");
    FAIL() << "nothing thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_STREQ(e.what(), "compiling 'm.onnx' for X failed: no nodes compiled");
    EXPECT_EQ(e.detail(), "") << "nothing was left out";
  }
}

TEST(LoadFailureExitCode, ModelFaultsMissingFilesAndTheRest) {
  const auto code = [](OrtErrorCode ort_code) { return LoadFailureExitCode(Ort::Exception("x", ort_code)); };
  EXPECT_EQ(code(ORT_INVALID_PROTOBUF), ExitCode::kInvalidModel);
  EXPECT_EQ(code(ORT_INVALID_GRAPH), ExitCode::kInvalidModel);
  EXPECT_EQ(code(ORT_NO_MODEL), ExitCode::kInvalidModel);
  EXPECT_EQ(code(ORT_INVALID_ARGUMENT), ExitCode::kInvalidModel);
  EXPECT_EQ(code(ORT_NO_SUCHFILE), ExitCode::kUsage);
  EXPECT_EQ(code(ORT_NOT_IMPLEMENTED), ExitCode::kInvalidModel);
  EXPECT_EQ(code(ORT_FAIL), ExitCode::kRuntimeFailure);
  EXPECT_EQ(code(ORT_RUNTIME_EXCEPTION), ExitCode::kRuntimeFailure);
  EXPECT_EQ(code(ORT_EP_FAIL), ExitCode::kRuntimeFailure);
  // ORT_FAIL while parsing or checking the model is the model's fault.
  EXPECT_EQ(
      LoadFailureExitCode(Ort::Exception("[ONNXRuntimeError] : 1 : FAIL : Load model from m.onnx failed:x", ORT_FAIL)),
      ExitCode::kInvalidModel);
  EXPECT_EQ(
      LoadFailureExitCode(Ort::Exception("Unsupported model IR version: 99, max supported IR version: 11", ORT_FAIL)),
      ExitCode::kInvalidModel);
}

TEST(OrtErrorReason, DropsOrtsPrefixAndKeepsTheFirstLine) {
  const auto reason = [](const char* message) { return OrtErrorReason(Ort::Exception(message, ORT_FAIL)); };
  EXPECT_EQ(reason("[ONNXRuntimeError] : 1 : FAIL : Load model failed: no EP\nstack line"), "Load model failed: no EP");
  EXPECT_EQ(reason("/onnxruntime_src/onnxruntime/core/session/x.cc:123 void F() cond was false. Provider missing "),
            "Provider missing");
  EXPECT_EQ(reason("  plain message  \nsecond"), "plain message");
  EXPECT_EQ(reason("/onnxruntime_src/x.cc:1 no check here"), "no check here");
}

TEST(CleanOrtMessage, DropsSourceLocationsAndSignaturesWhereverTheyAre) {
  EXPECT_EQ(
      CleanOrtMessage("[ONNXRuntimeError] : 1 : FAIL : Load model from m.onnx failed:/onnxruntime_src/onnxruntime/"
                      "core/graph/model.cc:187 onnxruntime::Model::Model(onnx::ModelProto&&, const PathString&, "
                      "const onnxruntime::ModelOptions&) Unsupported model IR version: 99, max supported IR "
                      "version: 11\n"),
      "Unsupported model IR version: 99, max supported IR version: 11");
  EXPECT_EQ(CleanOrtMessage("/onnxruntime_src/onnxruntime/core/common/safeint.h:17 static void "
                            "SafeIntExceptionHandler<onnxruntime::OnnxRuntimeException>::SafeIntOnOverflow() Integer "
                            "overflow"),
            "Integer overflow");
  EXPECT_EQ(CleanOrtMessage("Exception during initialization: tensorprotoutils.cc:1763 GetExtDataFromTensorProto "
                            "External initializer: w offset: 0 size to read: 24 are out of bounds"),
            "External initializer: w offset: 0 size to read: 24 are out of bounds");
  EXPECT_EQ(CleanOrtMessage("Load model from /m/c.onnx failed:Exception during loading: MLDataType for: "
                            "tensor(complex64) is not currently registered or supported"),
            "MLDataType for: tensor(complex64) is not currently registered or supported");
  EXPECT_EQ(CleanOrtMessage("/onnxruntime_src/x.cc"), "");
  EXPECT_EQ(CleanOrtMessage("nothing to clean"), "nothing to clean");
}

}  // namespace
}  // namespace modelkit::ort
