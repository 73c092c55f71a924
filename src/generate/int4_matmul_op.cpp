#include "int4_matmul_op.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "int4_matmul_kernel.h"
#include "modelkit/base/file_mappings.h"

namespace modelkit::generate {
namespace {

// Rows of A one work item multiplies: enough to reuse each unpacked block of weights, few enough that their int8
// values stay in the core's caches while the item walks its tiles.
constexpr size_t kRowsPerItem = 64;
// Work items per run, over the intra-op threads: more than the threads, so that one delayed thread does not hold the
// others up for long, and few enough that each item streams a long contiguous run of weights.
constexpr size_t kItemsPerRun = 16;

OrtStatusPtr StatusOf(const std::string& message) { return Ort::GetApi().CreateStatus(ORT_FAIL, message.c_str()); }

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
    weights_.emplace(qweight.GetTensorData<uint8_t>(), scales.GetTensorData<float>(), static_cast<size_t>(k),
                     static_cast<size_t>(n));
    // ORT keeps the initializers, mapped from the bundle's data file, for the session's life; the kernel never reads
    // them again. Dropping their pages now, not after every kernel is made, keeps the load's peak memory at one copy
    // of the weights plus the node being packed.
    ReclaimPages(qweight.GetTensorData<uint8_t>(), qweight.GetTensorTypeAndShapeInfo().GetElementCount());
    ReclaimPages(scales.GetTensorData<float>(), scales.GetTensorTypeAndShapeInfo().GetElementCount() * sizeof(float));
  }

  OrtStatusPtr ComputeV2(OrtKernelContext* context) {
    try {
      Compute(context);
      return nullptr;
    } catch (const Ort::Exception& error) {
      return StatusOf(error.what());
    } catch (const std::exception& error) {
      return StatusOf(std::string("MatMulInt4: ") + error.what());
    }
  }

 private:
  struct Work {
    const PackedInt4Matrix* weights;
    const QuantizedRows* rows;
    float* output;
    size_t row_items, tiles_per_item;
  };

  static void RunItem(void* data, size_t item) {
    const Work& work = *static_cast<const Work*>(data);
    const size_t row_item = item % work.row_items, tile_item = item / work.row_items;
    const size_t row_begin = row_item * kRowsPerItem, row_end = std::min(work.rows->rows, row_begin + kRowsPerItem);
    const size_t tile_begin = tile_item * work.tiles_per_item;
    const size_t tile_end = std::min(work.weights->tiles(), tile_begin + work.tiles_per_item);
    if (tile_begin < tile_end) {
      MultiplyInt4Tiles(*work.weights, *work.rows, row_begin, row_end, tile_begin, tile_end, work.output);
    }
  }

  static Ort::ConstValue ConstantInput(const Ort::ConstKernelInfo& info, size_t index, ONNXTensorElementDataType type,
                                       size_t elements, const std::string& node) {
    int is_constant = 0;
    Ort::ConstValue value = info.GetTensorConstantInput(index, &is_constant);
    if (!is_constant || !value) {
      throw Ort::Exception(node + ": input " + std::to_string(index) + " must be a constant initializer",
                           ORT_INVALID_ARGUMENT);
    }
    const auto shape = value.GetTensorTypeAndShapeInfo();
    if (shape.GetElementType() != type || shape.GetElementCount() != elements) {
      throw Ort::Exception(node + ": input " + std::to_string(index) + " does not have the " +
                               std::to_string(elements) + " elements that K and N ask for",
                           ORT_INVALID_ARGUMENT);
    }
    return value;
  }

  void Compute(OrtKernelContext* raw_context) {
    Ort::KernelContext context(raw_context);
    const Ort::ConstValue a = context.GetInput(0);
    std::vector<int64_t> shape = a.GetTensorTypeAndShapeInfo().GetShape();
    if (shape.empty() || shape.back() != static_cast<int64_t>(weights_->k())) {
      throw Ort::Exception("MatMulInt4: input A's last dimension is not K = " + std::to_string(weights_->k()),
                           ORT_INVALID_ARGUMENT);
    }
    size_t rows = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= static_cast<size_t>(shape[i]);
    shape.back() = static_cast<int64_t>(weights_->n());
    Ort::UnownedValue y = context.GetOutput(0, shape);
    if (rows == 0) return;
    // Per calling thread, so that sessions running at once on different threads do not share it; it only grows.
    thread_local QuantizedRows quantized;
    QuantizeRows(a.GetTensorData<float>(), rows, weights_->k(), quantized);
    Work work{&*weights_, &quantized, y.GetTensorMutableData<float>(), (rows + kRowsPerItem - 1) / kRowsPerItem, 0};
    const size_t tile_items = std::clamp<size_t>(kItemsPerRun / work.row_items, 1, weights_->tiles());
    work.tiles_per_item = (weights_->tiles() + tile_items - 1) / tile_items;
    context.ParallelFor(&RunItem, work.row_items * tile_items, 0, &work);
  }

  std::optional<PackedInt4Matrix> weights_;
};

struct Int4MatMulOp : Ort::CustomOpBase<Int4MatMulOp, Int4MatMulKernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi&, const OrtKernelInfo* info, void** kernel) const {
    try {
      *kernel = new Int4MatMulKernel(info);
      return nullptr;
    } catch (const Ort::Exception& error) {
      return StatusOf(error.what());
    } catch (const std::exception& error) {
      return StatusOf(std::string("MatMulInt4: ") + error.what());
    }
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

void AddInt4MatMulOp(Ort::SessionOptions& options) {
  // Both live as long as the process: sessions keep pointers to them. Made once, on first use.
  static Int4MatMulOp* const op = new Int4MatMulOp();
  static Ort::CustomOpDomain* const domain = [] {
    auto* made = new Ort::CustomOpDomain(kInt4MatMulDomain);
    made->Add(op);
    return made;
  }();
  options.Add(*domain);
}

}  // namespace modelkit::generate
