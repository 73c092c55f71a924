#include "support/attention_graph.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "builder/onnx_writer.h"
#include "generate/modelkit_ops.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::test {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

std::string WriteAttentionGraph(const std::filesystem::path& dir, const AttentionShape& shape) {
  const auto path = dir / "attention.onnx";
  builder::OnnxModelWriter writer(path, "attention.onnx.data");
  using builder::OnnxType;
  const int64_t h = shape.head_size;
  writer.AddInput("query", OnnxType::kFloat, {int64_t{1}, std::string("S"), shape.num_heads * h});
  writer.AddInput("key", OnnxType::kFloat, {int64_t{1}, std::string("S"), shape.kv_num_heads * h});
  writer.AddInput("value", OnnxType::kFloat, {int64_t{1}, std::string("S"), shape.kv_num_heads * h});
  writer.AddInput("past_key", OnnxType::kFloat, {int64_t{1}, shape.kv_num_heads, std::string("L"), h});
  writer.AddInput("past_value", OnnxType::kFloat, {int64_t{1}, shape.kv_num_heads, std::string("L"), h});
  writer.AddInput("seqlens_k", OnnxType::kInt32, {int64_t{1}});
  writer.AddInput("total_sequence_length", OnnxType::kInt32, {});
  std::vector<float> cos(static_cast<size_t>(shape.max_positions * h / 2)), sin(cos.size());
  for (int64_t p = 0; p < shape.max_positions; ++p) {
    for (int64_t i = 0; i < h / 2; ++i) {
      const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * static_cast<double>(i) / h);
      cos[static_cast<size_t>(p * h / 2 + i)] = static_cast<float>(std::cos(angle));
      sin[static_cast<size_t>(p * h / 2 + i)] = static_cast<float>(std::sin(angle));
    }
  }
  writer.AddFloats("cos_cache", OnnxType::kFloat, {shape.max_positions, h / 2}, cos);
  writer.AddFloats("sin_cache", OnnxType::kFloat, {shape.max_positions, h / 2}, sin);
  std::vector<builder::OnnxAttribute> attributes = {
      builder::IntAttr("num_heads", shape.num_heads), builder::IntAttr("kv_num_heads", shape.kv_num_heads),
      builder::IntAttr("do_rotary", 1), builder::IntAttr("rotary_interleaved", shape.interleaved ? 1 : 0),
      builder::FloatAttr("scale", static_cast<float>(1.0 / std::sqrt(static_cast<double>(h))))};
  if (shape.local_window) attributes.push_back(builder::IntAttr("local_window_size", 8));
  writer.AddNode("GroupQueryAttention",
                 {"query", "key", "value", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos_cache",
                  "sin_cache"},
                 {"output", "present_key", "present_value"}, attributes, "com.microsoft");
  writer.AddOutput("output", OnnxType::kFloat, {int64_t{1}, std::string("S"), shape.num_heads * h});
  writer.AddOutput("present_key", OnnxType::kFloat, {int64_t{1}, shape.kv_num_heads, std::string("L"), h});
  writer.AddOutput("present_value", OnnxType::kFloat, {int64_t{1}, shape.kv_num_heads, std::string("L"), h});
  writer.Finish();
  return ReadFile(path);
}

AttentionRun::AttentionRun(const std::string& model, const std::filesystem::path& dir, const AttentionShape& shape,
                           int threads)
    : shape_(shape),
      keys_(static_cast<size_t>(shape.kv_num_heads * shape.cache_length * shape.head_size), 0.0f),
      values_(keys_.size(), 0.0f) {
  Ort::Env& env = ort::SharedEnv();  // first: it also binds the C++ wrapper to the runtime's API
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(threads);
  options.AddConfigEntry("session.model_external_initializers_file_folder_path", dir.c_str());
  generate::AddModelkitOps(options);
  session_ = std::make_unique<Ort::Session>(env, model.data(), model.size(), options);
}

std::vector<float> AttentionRun::Step(const std::vector<float>& query, const std::vector<float>& key,
                                      const std::vector<float>& value, int64_t tokens, int32_t past) {
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  const int64_t h = shape_.head_size;
  const std::vector<int64_t> q_shape = {1, tokens, shape_.num_heads * h},
                             kv_shape = {1, tokens, shape_.kv_num_heads * h};
  const std::vector<int64_t> cache_shape = {1, shape_.kv_num_heads, shape_.cache_length, h};
  int32_t seqlens = past + static_cast<int32_t>(tokens) - 1, total = past + static_cast<int32_t>(tokens);
  const int64_t one = 1;
  auto make = [&](const std::vector<float>& data, const std::vector<int64_t>& dims) {
    return Ort::Value::CreateTensor<float>(memory, const_cast<float*>(data.data()), data.size(), dims.data(),
                                           dims.size());
  };
  std::vector<float> output(static_cast<size_t>(tokens * shape_.num_heads * h));
  Ort::IoBinding binding(*session_);
  binding.BindInput("query", make(query, q_shape));
  binding.BindInput("key", make(key, kv_shape));
  binding.BindInput("value", make(value, kv_shape));
  binding.BindInput("past_key", make(keys_, cache_shape));
  binding.BindInput("past_value", make(values_, cache_shape));
  binding.BindInput("seqlens_k", Ort::Value::CreateTensor<int32_t>(memory, &seqlens, 1, &one, 1));
  binding.BindInput("total_sequence_length", Ort::Value::CreateTensor<int32_t>(memory, &total, 1, nullptr, 0));
  binding.BindOutput("output", make(output, q_shape));
  binding.BindOutput("present_key", make(keys_, cache_shape));
  binding.BindOutput("present_value", make(values_, cache_shape));
  session_->Run(Ort::RunOptions{nullptr}, binding);
  return output;
}

}  // namespace modelkit::test
