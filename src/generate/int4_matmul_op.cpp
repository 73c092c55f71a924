#include "int4_matmul_op.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "int4_matmul_kernel.h"
#include "modelkit/base/file_mappings.h"
#include "modelkit_ops.h"

namespace modelkit::generate {
namespace {

class Int4MatMulKernel {
 public:
  explicit Int4MatMulKernel(const OrtKernelInfo* info) {
    const Ort::ConstKernelInfo kernel_info(info);
    const int64_t k = kernel_info.GetAttribute<int64_t>("K"), n = kernel_info.GetAttribute<int64_t>("N");
    const std::string node = kernel_info.GetNodeName();
    if (k <= 0 || n <= 0 || k % static_cast<int64_t>(kInt4BlockSize) != 0) {
      throw Ort::Exception(node + ": K must be a positive multiple of 32 and N positive", ORT_INVALID_ARGUMENT);
    }
    const size_t blocks = static_cast<size_t>(k) / kInt4BlockSize;
    const auto qweight = ConstantInput(kernel_info, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8,
                                       static_cast<size_t>(n) * blocks * kInt4BlockSize / 2, node);
    const auto scales =
        ConstantInput(kernel_info, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, static_cast<size_t>(n) * blocks, node);
    // ORT keeps the initializers, mapped from the bundle's data file, for the session's life; the kernel never reads
    // them again once packed. Dropping their pages as soon as each band of columns is packed (and what is left of
    // partial pages at the end), not after every kernel is made, keeps the load's peak memory at one copy of the
    // weights plus one band.
    weights_.emplace(qweight.GetTensorData<uint8_t>(), scales.GetTensorData<float>(), static_cast<size_t>(k),
                     static_cast<size_t>(n), ReclaimPages);
    ReclaimPages(qweight.GetTensorData<uint8_t>(), qweight.GetTensorTypeAndShapeInfo().GetElementCount());
    ReclaimPages(scales.GetTensorData<float>(), scales.GetTensorTypeAndShapeInfo().GetElementCount() * sizeof(float));
  }

  OrtStatusPtr ComputeV2(OrtKernelContext* context) {
    return StatusOfRunning(kInt4MatMulOpType, [&] { Compute(context); });
  }

 private:
  void Compute(OrtKernelContext* raw_context) {
    Ort::KernelContext context(raw_context);
    const MatMulIo io = BindMatMul(context, weights_->k(), weights_->n(), kInt4MatMulOpType);
    if (io.rows == 0) return;
    // Per calling thread, so that sessions running at once on different threads do not share it; it only grows.
    thread_local QuantizedRows quantized;
    QuantizeRows(io.a, io.rows, weights_->k(), quantized);
    const QuantizedRows& rows = quantized;
    ParallelMatMul(context, io.rows, weights_->tiles(),
                   [&](size_t row_begin, size_t row_end, size_t tile_begin, size_t tile_end) {
                     MultiplyInt4Tiles(*weights_, rows, row_begin, row_end, tile_begin, tile_end, io.y);
                   });
  }

  std::optional<PackedInt4Matrix> weights_;
};

struct Int4MatMulOpDefinition : Ort::CustomOpBase<Int4MatMulOpDefinition, Int4MatMulKernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi&, const OrtKernelInfo* info, void** kernel) const {
    return StatusOfRunning(kInt4MatMulOpType, [&] { *kernel = new Int4MatMulKernel(info); });
  }
  const char* GetName() const { return kInt4MatMulOpType; }
  size_t GetInputTypeCount() const { return 3; }
  ONNXTensorElementDataType GetInputType(size_t index) const {
    return index == 1 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  }
  size_t GetOutputTypeCount() const { return 1; }
  ONNXTensorElementDataType GetOutputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
};

}  // namespace

const OrtCustomOp* Int4MatMulOp() {
  static const Int4MatMulOpDefinition op;
  return &op;
}

}  // namespace modelkit::generate
