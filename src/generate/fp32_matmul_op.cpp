#include "fp32_matmul_op.h"

#include <optional>
#include <string>
#include <vector>

#include "fp32_matmul_kernel.h"
#include "modelkit/base/file_mappings.h"
#include "modelkit_ops.h"

namespace modelkit::generate {
namespace {

class Fp32MatMulKernel {
 public:
  explicit Fp32MatMulKernel(const OrtKernelInfo* info) {
    const Ort::ConstKernelInfo kernel_info(info);
    const std::string node = kernel_info.GetNodeName();
    int is_constant = 0;
    const Ort::ConstValue b = kernel_info.GetTensorConstantInput(1, &is_constant);
    const std::vector<int64_t> shape =
        is_constant && b ? b.GetTensorTypeAndShapeInfo().GetShape() : std::vector<int64_t>{};
    if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0) {
      throw Ort::Exception(node + ": input B must be a constant [K, N] initializer", ORT_INVALID_ARGUMENT);
    }
    const size_t k = static_cast<size_t>(shape[0]), n = static_cast<size_t>(shape[1]);
    const Ort::ConstValue weights = ConstantInput(kernel_info, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, k * n, node);
    // As MatMulInt4: the initializer stays mapped for the session's life, unread once packed, so its pages go as
    // soon as each band of rows is packed (and what is left of partial pages at the end).
    weights_.emplace(weights.GetTensorData<float>(), k, n, ReclaimPages);
    ReclaimPages(weights.GetTensorData<float>(), k * n * sizeof(float));
  }

  OrtStatusPtr ComputeV2(OrtKernelContext* context) {
    return StatusOfRunning(kFp32MatMulOpType, [&] { Compute(context); });
  }

 private:
  void Compute(OrtKernelContext* raw_context) {
    Ort::KernelContext context(raw_context);
    const MatMulIo io = BindMatMul(context, weights_->k(), weights_->n(), kFp32MatMulOpType);
    if (io.rows == 0) return;
    ParallelMatMul(context, io.rows, weights_->tiles(),
                   [&](size_t row_begin, size_t row_end, size_t tile_begin, size_t tile_end) {
                     MultiplyFp32Tiles(*weights_, io.a, row_begin, row_end, tile_begin, tile_end, io.y);
                   });
  }

  std::optional<PackedFp32Matrix> weights_;
};

struct Fp32MatMulOpDefinition : Ort::CustomOpBase<Fp32MatMulOpDefinition, Fp32MatMulKernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi&, const OrtKernelInfo* info, void** kernel) const {
    return StatusOfRunning(kFp32MatMulOpType, [&] { *kernel = new Fp32MatMulKernel(info); });
  }
  const char* GetName() const { return kFp32MatMulOpType; }
  size_t GetInputTypeCount() const { return 2; }
  ONNXTensorElementDataType GetInputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
  size_t GetOutputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetOutputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
};

}  // namespace

const OrtCustomOp* Fp32MatMulOp() {
  static const Fp32MatMulOpDefinition op;
  return &op;
}

}  // namespace modelkit::generate
