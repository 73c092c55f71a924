// ONNX test cases written by tests/fixtures/models/make_models.py: a model, its inputs and the outputs an
// independent numpy computation expects. Runs a case in an ORT session and compares.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <filesystem>
#include <string>
#include <vector>

namespace modelkit::test {

struct CaseTensor {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;
};

struct ModelCase {
  std::filesystem::path model;
  double atol = 1e-5;
  std::vector<CaseTensor> inputs;
  std::vector<CaseTensor> outputs;
};

// Directory the generated models live in (the build tree's test_models/).
std::filesystem::path TestModelsDir();

// Loads NAME.case.json (and its .bin files) from `dir`. Fails the test on a malformed case.
ModelCase LoadModelCase(const std::string& name, const std::filesystem::path& dir = TestModelsDir());

// Runs the case's inputs through `session` and checks every expected output within atol (+ 1e-4 relative).
void ExpectCaseOutputs(Ort::Session& session, const ModelCase& model_case);

}  // namespace modelkit::test
