#include "support/model_case.h"

#include <cmath>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace modelkit::test {
namespace {

ONNXTensorElementDataType TypeOf(const std::string& dtype) {
  if (dtype == "float32") return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  if (dtype == "int32") return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
  if (dtype == "int64") return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  if (dtype == "uint8") return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
  ADD_FAILURE() << "unsupported dtype " << dtype;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}

std::vector<CaseTensor> LoadTensors(const nlohmann::json& list, const std::filesystem::path& dir) {
  std::vector<CaseTensor> tensors;
  for (const auto& entry : list) {
    CaseTensor tensor;
    tensor.name = entry.at("name").get<std::string>();
    tensor.type = TypeOf(entry.at("dtype").get<std::string>());
    tensor.shape = entry.at("shape").get<std::vector<int64_t>>();
    std::ifstream in(dir / entry.at("file").get<std::string>(), std::ios::binary);
    EXPECT_TRUE(in.good()) << entry.at("file");
    in.seekg(0, std::ios::end);
    tensor.data.resize(static_cast<size_t>(in.tellg()));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(tensor.data.data()), static_cast<std::streamsize>(tensor.data.size()));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

}  // namespace

std::filesystem::path TestModelsDir() { return MODELKIT_TEST_MODELS_DIR; }

ModelCase LoadModelCase(const std::string& name, const std::filesystem::path& dir) {
  std::ifstream in(dir / (name + ".case.json"));
  EXPECT_TRUE(in.good()) << "missing test case " << (dir / (name + ".case.json"));
  const nlohmann::json json = nlohmann::json::parse(in);
  ModelCase model_case;
  model_case.model = dir / json.at("model").get<std::string>();
  model_case.atol = json.at("atol").get<double>();
  model_case.inputs = LoadTensors(json.at("inputs"), dir);
  model_case.outputs = LoadTensors(json.at("outputs"), dir);
  return model_case;
}

void ExpectCaseOutputs(Ort::Session& session, const ModelCase& model_case) {
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<Ort::Value> inputs;
  std::vector<const char*> input_names;
  for (const CaseTensor& tensor : model_case.inputs) {
    inputs.push_back(Ort::Value::CreateTensor(memory, const_cast<std::byte*>(tensor.data.data()), tensor.data.size(),
                                              tensor.shape.data(), tensor.shape.size(), tensor.type));
    input_names.push_back(tensor.name.c_str());
  }
  std::vector<const char*> output_names;
  for (const CaseTensor& tensor : model_case.outputs) output_names.push_back(tensor.name.c_str());
  auto outputs = session.Run(Ort::RunOptions{nullptr}, input_names.data(), inputs.data(), inputs.size(),
                             output_names.data(), output_names.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const CaseTensor& expected = model_case.outputs[i];
    const auto info = outputs[i].GetTensorTypeAndShapeInfo();
    ASSERT_EQ(info.GetShape(), expected.shape) << expected.name;
    ASSERT_EQ(info.GetElementType(), ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) << expected.name;
    const float* actual = outputs[i].GetTensorData<float>();
    const size_t count = expected.data.size() / sizeof(float);
    std::vector<float> want(count);
    std::memcpy(want.data(), expected.data.data(), expected.data.size());
    size_t mismatches = 0;
    for (size_t j = 0; j < count; ++j) {
      const double tolerance = model_case.atol + 1e-4 * std::fabs(want[j]);
      if (!(std::fabs(static_cast<double>(actual[j]) - want[j]) <= tolerance) && mismatches++ < 5) {
        ADD_FAILURE() << expected.name << "[" << j << "]: got " << actual[j] << ", expected " << want[j];
      }
    }
    EXPECT_EQ(mismatches, 0u) << expected.name << " of " << model_case.model;
  }
}

}  // namespace modelkit::test
