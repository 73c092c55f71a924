#include "decode_attention_op.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "decode_attention_kernel.h"
#include "modelkit_ops.h"

namespace modelkit::generate {
namespace {

enum Input : size_t {
  kQuery,
  kKey,
  kValue,
  kPastKey,
  kPastValue,
  kSeqlensK,
  kTotalSequenceLength,
  kCosCache,
  kSinCache,
  kInputCount
};
enum Output : size_t { kAttention, kPresentKey, kPresentValue, kOutputCount };

// The node's attribute `name`, or `otherwise` when it has none.
template <typename T>
T AttributeOr(const Ort::ConstKernelInfo& info, const char* name, T otherwise) {
  T value = otherwise;
  const OrtApi& api = Ort::GetApi();
  OrtStatus* status = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    status = api.KernelInfoGetAttribute_float(info, name, &value);
  } else {
    status = api.KernelInfoGetAttribute_int64(info, name, &value);
  }
  if (status == nullptr) return value;
  api.ReleaseStatus(status);
  return otherwise;
}

std::vector<int64_t> ShapeOf(const Ort::ConstValue& value) { return value.GetTensorTypeAndShapeInfo().GetShape(); }

class DecodeAttentionKernel {
 public:
  explicit DecodeAttentionKernel(const OrtKernelInfo* info) : ort_kernel_(nullptr) {
    const Ort::ConstKernelInfo kernel_info(info);
    num_heads_ = AttributeOr<int64_t>(kernel_info, "num_heads", 0);
    kv_num_heads_ = AttributeOr<int64_t>(kernel_info, "kv_num_heads", 0);
    const int64_t do_rotary = AttributeOr<int64_t>(kernel_info, "do_rotary", 0);
    const int64_t rotary_interleaved = AttributeOr<int64_t>(kernel_info, "rotary_interleaved", 0);
    scale_ = AttributeOr<float>(kernel_info, "scale", 0.0f);
    rotary_ = do_rotary == 1;
    if (num_heads_ <= 0 || kv_num_heads_ <= 0 || num_heads_ % kv_num_heads_ != 0 || rotary_interleaved != 0) {
      throw Ort::Exception(
          kernel_info.GetNodeName() + ": needs num_heads a positive multiple of kv_num_heads and rotary_interleaved 0",
          ORT_INVALID_ARGUMENT);
    }
    // ORT's own kernel for the node, for every run the decode kernel does not take.
    const std::array<Ort::OpAttr, 5> attributes = {
        Ort::OpAttr("num_heads", &num_heads_, 1, ORT_OP_ATTR_INT),
        Ort::OpAttr("kv_num_heads", &kv_num_heads_, 1, ORT_OP_ATTR_INT),
        Ort::OpAttr("do_rotary", &do_rotary, 1, ORT_OP_ATTR_INT),
        Ort::OpAttr("rotary_interleaved", &rotary_interleaved, 1, ORT_OP_ATTR_INT),
        Ort::OpAttr("scale", &scale_, 1, ORT_OP_ATTR_FLOAT),
    };
    const char* type_names[] = {"T", "M"};
    const ONNXTensorElementDataType types[] = {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32};
    ort_kernel_ = Ort::Op::Create(info, "GroupQueryAttention", "com.microsoft", 1, type_names, types, 2,
                                  attributes.data(), attributes.size(), kInputCount, kOutputCount);
  }

  OrtStatusPtr ComputeV2(OrtKernelContext* context) {
    return StatusOfRunning(kDecodeAttentionOpType, [&] { Compute(context); });
  }

 private:
  void Compute(OrtKernelContext* raw_context) {
    Ort::KernelContext context(raw_context);
    std::array<Ort::ConstValue, kInputCount> inputs;
    for (size_t i = 0; i < kInputCount; ++i) inputs[i] = context.GetInput(i);
    const std::vector<int64_t> query = ShapeOf(inputs[kQuery]), past_key = ShapeOf(inputs[kPastKey]);
    if (query.size() != 3 || past_key.size() != 4 || query[2] % num_heads_ != 0) {
      throw Ort::Exception(
          "GroupQueryAttention: query must be [batch, sequence, heads * head size] and past_key "
          "[batch, kv heads, length, head size]",
          ORT_INVALID_ARGUMENT);
    }
    const int64_t head_size = query[2] / num_heads_;
    const int32_t total = *inputs[kTotalSequenceLength].GetTensorData<int32_t>();
    const int64_t present_length = std::max<int64_t>(total, past_key[2]);
    Ort::UnownedValue outputs[kOutputCount] = {
        context.GetOutput(kAttention, query),
        context.GetOutput(kPresentKey, {query[0], kv_num_heads_, present_length, head_size}),
        context.GetOutput(kPresentValue, {query[0], kv_num_heads_, present_length, head_size}),
    };
    if (!RunDecodeStep(context, inputs, outputs, query, past_key, total)) {
      const OrtValue* input_values[kInputCount];
      for (size_t i = 0; i < kInputCount; ++i) input_values[i] = inputs[i];
      OrtValue* output_values[kOutputCount] = {outputs[0], outputs[1], outputs[2]};
      ort_kernel_.Invoke(raw_context, input_values, kInputCount, output_values, kOutputCount);
    }
  }

  // Runs the step on modelkit's kernel when it is a decode step the kernel takes; false (nothing written) otherwise.
  bool RunDecodeStep(Ort::KernelContext& context, const std::array<Ort::ConstValue, kInputCount>& inputs,
                     Ort::UnownedValue (&outputs)[kOutputCount], const std::vector<int64_t>& query,
                     const std::vector<int64_t>& past_key, int32_t total) {
    const int64_t head_size = query[2] / num_heads_;
    DecodeAttentionShape shape;
    shape.num_heads = static_cast<size_t>(num_heads_);
    shape.kv_num_heads = static_cast<size_t>(kv_num_heads_);
    shape.head_size = static_cast<size_t>(head_size);
    shape.cache_length = static_cast<size_t>(past_key[2]);
    shape.scale = scale_ == 0.0f ? 1.0f / std::sqrt(static_cast<float>(head_size)) : scale_;
    shape.rotary = rotary_;
    const std::vector<int64_t> cos = ShapeOf(inputs[kCosCache]);
    const bool one_new_token = query[0] == 1 && query[1] == 1 && past_key[0] == 1 && past_key[1] == kv_num_heads_ &&
                               past_key[3] == head_size && ShapeOf(inputs[kSeqlensK]) == std::vector<int64_t>{1};
    // A later token (not a one-token prompt) without padding, inside the cache, with a cos/sin row for it.
    if (!one_new_token || total < 2 || total > past_key[2] ||
        *inputs[kSeqlensK].GetTensorData<int32_t>() != total - 1 ||
        (rotary_ && (cos.size() != 2 || cos[1] * 2 != head_size || cos[0] < total)) ||
        !DecodeAttentionShapeSupported(shape)) {
      return false;
    }
    DecodeAttentionStep step;
    step.key_cache = outputs[kPresentKey].GetTensorMutableData<float>();
    step.value_cache = outputs[kPresentValue].GetTensorMutableData<float>();
    // Only with the caches shared: the past is then already in the present's buffers.
    if (step.key_cache != inputs[kPastKey].GetTensorData<float>() ||
        step.value_cache != inputs[kPastValue].GetTensorData<float>()) {
      return false;
    }
    step.position = static_cast<size_t>(total - 1);
    step.query = inputs[kQuery].GetTensorData<float>();
    step.key = inputs[kKey].GetTensorData<float>();
    step.value = inputs[kValue].GetTensorData<float>();
    if (rotary_) {
      step.cos = inputs[kCosCache].GetTensorData<float>() + step.position * static_cast<size_t>(cos[1]);
      step.sin = inputs[kSinCache].GetTensorData<float>() + step.position * static_cast<size_t>(cos[1]);
    }
    step.output = outputs[kAttention].GetTensorMutableData<float>();
    struct Work {
      const DecodeAttentionShape* shape;
      const DecodeAttentionStep* step;
    } work{&shape, &step};
    const auto run_head = [](void* data, size_t kv_head) {
      const Work& w = *static_cast<const Work*>(data);
      RunDecodeAttentionHead(*w.shape, *w.step, kv_head);
    };
    context.ParallelFor(run_head, shape.kv_num_heads, 0, &work);
    return true;
  }

  int64_t num_heads_ = 0, kv_num_heads_ = 0;
  float scale_ = 0.0f;
  bool rotary_ = false;
  Ort::Op ort_kernel_;
};

struct DecodeAttentionOpDefinition
    : Ort::CustomOpBase<DecodeAttentionOpDefinition, DecodeAttentionKernel, /*WithStatus=*/true> {
  OrtStatusPtr CreateKernelV2(const OrtApi&, const OrtKernelInfo* info, void** kernel) const {
    return StatusOfRunning(kDecodeAttentionOpType, [&] { *kernel = new DecodeAttentionKernel(info); });
  }
  const char* GetName() const { return kDecodeAttentionOpType; }
  size_t GetInputTypeCount() const { return kInputCount; }
  ONNXTensorElementDataType GetInputType(size_t index) const {
    return index == kSeqlensK || index == kTotalSequenceLength ? ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32
                                                               : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  }
  size_t GetOutputTypeCount() const { return kOutputCount; }
  ONNXTensorElementDataType GetOutputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
};

}  // namespace

const OrtCustomOp* DecodeAttentionOp() {
  static const DecodeAttentionOpDefinition op;
  return &op;
}

}  // namespace modelkit::generate
