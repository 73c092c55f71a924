#include "modelkit_ops.h"

#include <vector>

#include "decode_attention_op.h"
#include "fp32_matmul_op.h"
#include "int4_matmul_op.h"

namespace modelkit::generate {

void AddModelkitOps(Ort::SessionOptions& options) {
  // Lives as long as the process: sessions keep pointers to it and its ops. Made once, on first use.
  static Ort::CustomOpDomain* const domain = [] {
    auto* made = new Ort::CustomOpDomain(kModelkitOpsDomain);
    made->Add(Int4MatMulOp());
    made->Add(Fp32MatMulOp());
    made->Add(DecodeAttentionOp());
    return made;
  }();
  options.Add(*domain);
}

OrtStatusPtr StatusOf(const std::string& message) { return Ort::GetApi().CreateStatus(ORT_FAIL, message.c_str()); }

Ort::ConstValue ConstantInput(const Ort::ConstKernelInfo& info, size_t index, ONNXTensorElementDataType type,
                              size_t elements, const std::string& node) {
  int is_constant = 0;
  Ort::ConstValue value = info.GetTensorConstantInput(index, &is_constant);
  if (!is_constant || !value) {
    throw Ort::Exception(node + ": input " + std::to_string(index) + " must be a constant initializer",
                         ORT_INVALID_ARGUMENT);
  }
  const auto shape = value.GetTensorTypeAndShapeInfo();
  if (shape.GetElementType() != type || shape.GetElementCount() != elements) {
    throw Ort::Exception(node + ": input " + std::to_string(index) + " does not have the " + std::to_string(elements) +
                             " elements that K and N ask for",
                         ORT_INVALID_ARGUMENT);
  }
  return value;
}

MatMulIo BindMatMul(Ort::KernelContext& context, size_t k, size_t n, const char* op) {
  const Ort::ConstValue a = context.GetInput(0);
  std::vector<int64_t> shape = a.GetTensorTypeAndShapeInfo().GetShape();
  if (shape.empty() || shape.back() != static_cast<int64_t>(k)) {
    throw Ort::Exception(std::string(op) + ": input A's last dimension is not K = " + std::to_string(k),
                         ORT_INVALID_ARGUMENT);
  }
  MatMulIo io;
  io.rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) io.rows *= static_cast<size_t>(shape[i]);
  shape.back() = static_cast<int64_t>(n);
  io.a = a.GetTensorData<float>();
  io.y = context.GetOutput(0, shape).GetTensorMutableData<float>();
  return io;
}

}  // namespace modelkit::generate
