#include "support/pipeline_runner.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "modelkit/base/files.h"
#include "modelkit/ort/runtime.h"

namespace modelkit::test {
namespace {

std::string LayerName(std::string format, int64_t layer) {
  return format.replace(format.find("%d"), 2, std::to_string(layer));
}

}  // namespace

PipelineRunner::PipelineRunner(const std::filesystem::path& bundle) {
  const auto config = nlohmann::ordered_json::parse(ReadTextFile(bundle / "genai_config.json", "genai config"));
  const auto& decoder = config["model"]["decoder"];
  kv_heads_ = decoder["num_key_value_heads"];
  head_size_ = decoder["head_size"];
  vocab_size_ = config["model"]["vocab_size"];
  context_length_ = config["model"]["context_length"];
  const int64_t layers = decoder["num_hidden_layers"];
  for (int64_t l = 0; l < layers; ++l) {
    for (const char* key : {"past_key_names", "past_value_names"}) {
      const std::string past = LayerName(decoder["inputs"][key], l);
      const std::string present = LayerName(decoder["outputs"][std::string("present") + (key + 4)], l);
      kv_[past] = {};
      kv_[present] = {};  // aliases past: resolved in Run
    }
  }
  ort::SharedEnv();
  for (const auto& [name, stage_config] : decoder["pipeline"][0].items()) {
    Stage stage;
    stage.name = name;
    stage.inputs = stage_config["inputs"].get<std::vector<std::string>>();
    stage.outputs = stage_config["outputs"].get<std::vector<std::string>>();
    stage.run_on_prompt = stage_config.value("run_on_prompt", true);
    stage.run_on_token_gen = stage_config.value("run_on_token_gen", true);
    Ort::SessionOptions options;
    options.SetIntraOpNumThreads(1);
    const std::string path = (bundle / stage_config["filename"].get<std::string>()).string();
    stage.session = std::make_unique<Ort::Session>(ort::SharedEnv(), path.c_str(), options);
    for (size_t i = 0; i < stage.session->GetInputCount(); ++i) {
      const std::string input = stage.session->GetInputNameAllocated(i, Ort::AllocatorWithDefaultOptions()).get();
      if (kv_.count(input)) kv_type_ = stage.session->GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetElementType();
    }
    stages_.push_back(std::move(stage));
  }
  const size_t element = kv_type_ == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ? 2 : 4;
  for (auto& [name, buffer] : kv_) {
    if (name.rfind("past", 0) == 0)
      buffer.assign(static_cast<size_t>(kv_heads_ * context_length_ * head_size_) * element, std::byte{0});
  }
}

std::vector<float> PipelineRunner::Run(const std::vector<int64_t>& tokens) {
  const bool prompt = past_length_ == 0;
  const int64_t seq = static_cast<int64_t>(tokens.size());
  const int64_t total = past_length_ + seq;
  const Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<int64_t> ids = tokens;
  std::vector<int64_t> mask(static_cast<size_t>(total), 1);
  std::vector<std::byte> logits;  // sized once the lm_head stage's logits type is known
  ONNXTensorElementDataType logits_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  const int64_t ids_shape[] = {1, seq}, mask_shape[] = {1, total}, logits_shape[] = {1, seq, vocab_size_};
  const int64_t kv_shape[] = {1, kv_heads_, context_length_, head_size_};
  // Present names map onto the past buffer of the same layer and kind.
  const auto kv_buffer = [&](const std::string& name) -> std::vector<std::byte>& {
    std::string past = name;
    if (past.rfind("present", 0) == 0) past.replace(0, 7, "past_key_values");
    return kv_.at(past);
  };
  std::map<std::string, Ort::Value> named;  // non-managed outputs for later stages
  last_stages_.clear();
  for (Stage& stage : stages_) {
    if (prompt ? !stage.run_on_prompt : !stage.run_on_token_gen) continue;
    last_stages_.push_back(stage.name);
    Ort::IoBinding binding(*stage.session);
    for (const std::string& input : stage.inputs) {
      if (input == "input_ids") {
        binding.BindInput("input_ids", Ort::Value::CreateTensor<int64_t>(cpu, ids.data(), ids.size(), ids_shape, 2));
      } else if (input == "attention_mask") {
        binding.BindInput("attention_mask",
                          Ort::Value::CreateTensor<int64_t>(cpu, mask.data(), mask.size(), mask_shape, 2));
      } else if (kv_.count(input)) {
        std::vector<std::byte>& buffer = kv_buffer(input);
        binding.BindInput(input.c_str(),
                          Ort::Value::CreateTensor(cpu, buffer.data(), buffer.size(), kv_shape, 4, kv_type_));
      } else {
        const auto it = named.find(input);
        if (it == named.end()) throw std::runtime_error("stage " + stage.name + " needs " + input + ", not produced");
        binding.BindInput(input.c_str(), it->second);
      }
    }
    std::vector<std::string> produced;
    for (const std::string& output : stage.outputs) {
      if (output == "logits") {
        for (size_t i = 0; i < stage.session->GetOutputCount(); ++i) {
          if (stage.session->GetOutputNameAllocated(i, Ort::AllocatorWithDefaultOptions()).get() == output) {
            logits_type = stage.session->GetOutputTypeInfo(i).GetTensorTypeAndShapeInfo().GetElementType();
          }
        }
        const size_t element = logits_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ? 2 : 4;
        logits.assign(static_cast<size_t>(seq * vocab_size_) * element, std::byte{0});
        binding.BindOutput("logits",
                           Ort::Value::CreateTensor(cpu, logits.data(), logits.size(), logits_shape, 3, logits_type));
      } else if (kv_.count(output)) {
        std::vector<std::byte>& buffer = kv_buffer(output);
        binding.BindOutput(output.c_str(),
                           Ort::Value::CreateTensor(cpu, buffer.data(), buffer.size(), kv_shape, 4, kv_type_));
      } else {
        binding.BindOutput(output.c_str(), cpu);
        produced.push_back(output);
      }
    }
    stage.session->Run(Ort::RunOptions{}, binding);
    std::vector<Ort::Value> values = binding.GetOutputValues();
    // GetOutputValues returns every bound output in binding order; keep only the non-managed ones.
    size_t index = 0;
    for (const std::string& output : stage.outputs) {
      Ort::Value& value = values[index++];
      if (std::find(produced.begin(), produced.end(), output) != produced.end()) named[output] = std::move(value);
    }
  }
  past_length_ = total;
  std::vector<float> result(static_cast<size_t>(seq * vocab_size_));
  if (logits_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16) {
    const auto* halves = reinterpret_cast<const Ort::Float16_t*>(logits.data());
    for (size_t i = 0; i < result.size(); ++i) result[i] = halves[i].ToFloat();
  } else {
    std::memcpy(result.data(), logits.data(), result.size() * sizeof(float));
  }
  return result;
}

}  // namespace modelkit::test
