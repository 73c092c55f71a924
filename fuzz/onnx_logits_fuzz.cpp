// libFuzzer target: arbitrary bytes as a stage's model.onnx, given to the load-time graph rewrites (the last-position
// logits rewrite that runs on every bundle modelkit loads, and the rewrites to modelkit's int4, fp32 and attention CPU
// kernels). Each either declines (nullopt), rewrites, or throws modelkit::Error; a rewrite is a well-formed message
// that the same rewrite then declines (its logits are already one position long; no node qualifies any more).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "generate/kernel_rewrites.h"
#include "generate/last_position_logits.h"
#include "modelkit/base/error.h"
#include "modelkit/base/protobuf_fields.h"

namespace {

void CheckLogitsRewrite(std::string_view model) {
  std::optional<std::string> rewritten;
  try {
    rewritten = modelkit::generate::SliceLogitsToLastPosition(model, "logits");
  } catch (const modelkit::Error&) {
    return;
  }
  if (!rewritten) return;
  // Not caught: a rewrite that is not a well-formed message, or that is rewritten again, is a finding.
  modelkit::ParseProtobuf(*rewritten, "rewritten model");
  if (modelkit::generate::SliceLogitsToLastPosition(*rewritten, "logits")) std::abort();
}

// A kernel rewrite (kernel_rewrites.h) of `model`: what it makes must parse, and rewriting it again must find nothing.
template <typename Rewrite>
void CheckKernelRewrite(std::string_view model, Rewrite rewrite) {
  std::optional<modelkit::generate::KernelRewrite> rewritten;
  try {
    rewritten = rewrite(model);
  } catch (const modelkit::Error&) {
    return;
  }
  if (!rewritten) return;
  if (rewritten->replaced == 0) std::abort();
  modelkit::ParseProtobuf(rewritten->model, "rewritten model");
  if (rewrite(rewritten->model)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view model(reinterpret_cast<const char*>(data), size);
  CheckLogitsRewrite(model);
  CheckKernelRewrite(model, modelkit::generate::UseInt4MatMulKernel);
  CheckKernelRewrite(model, modelkit::generate::UseFp32MatMulKernel);
  CheckKernelRewrite(model, modelkit::generate::UseDecodeAttentionKernel);
  return 0;
}
