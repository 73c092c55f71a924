// --input-data feeds real tensors: a rendered line of text, read from .npz by modelkit's loader, run through the
// real PP-OCRv4 recognition model, decodes (greedy CTC over ppocr_keys_v1.txt) to the text that was rendered.
#include <gtest/gtest.h>

#include <fstream>

#include "modelkit/ort/runtime.h"
#include "perf/npz.h"
#include "support/model_case.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;

const fs::path kOcrDir = MODELKIT_OCR_MODELS_DIR;

std::vector<std::string> ReadLines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Greedy CTC: best class per time step, repeats collapsed, blank (0) dropped; class i is keys[i - 1], and the
// class after the last key is a space (PaddleOCR's use_space_char).
std::string CtcDecode(const float* scores, int64_t steps, int64_t classes, const std::vector<std::string>& keys) {
  std::string text;
  int64_t previous = -1;
  for (int64_t t = 0; t < steps; ++t) {
    const float* row = scores + t * classes;
    const int64_t best = std::max_element(row, row + classes) - row;
    if (best != previous && best != 0) {
      text += best - 1 < static_cast<int64_t>(keys.size()) ? keys[static_cast<size_t>(best - 1)] : " ";
    }
    previous = best;
  }
  return text;
}

TEST(OcrInputData, RenderedTextDecodesThroughTheRecognitionModel) {
  ASSERT_TRUE(fs::exists(kOcrDir / "rec.onnx")) << "run scripts/fetch_test_models.sh (scripts/setup.sh does)";
  Ort::Env& env = ort::SharedEnv();
  Ort::SessionOptions options;
  Ort::Session session(env, (kOcrDir / "rec.onnx").c_str(), options);
  Ort::AllocatorWithDefaultOptions allocator;
  perf::TensorSpec spec;
  spec.name = session.GetInputNameAllocated(0, allocator).get();
  for (int64_t dim : session.GetInputTypeInfo(0).GetTensorTypeAndShapeInfo().GetShape()) {
    perf::Dim d;
    if (dim >= 0) d.value = dim;
    spec.dims.push_back(d);
  }
  std::vector<std::string> warnings;
  std::vector<perf::HostTensor> inputs =
      perf::LoadNpzInputs(test::TestModelsDir() / "ocr_rec_input.npz", {spec}, warnings);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_TRUE(warnings.empty());
  const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  Ort::Value input =
      Ort::Value::CreateTensor(memory, inputs[0].data.data(), inputs[0].data.size(), inputs[0].shape.data(),
                               inputs[0].shape.size(), ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  const std::string input_name = spec.name;
  const std::string output_name = session.GetOutputNameAllocated(0, allocator).get();
  const char* input_names[] = {input_name.c_str()};
  const char* output_names[] = {output_name.c_str()};
  auto outputs = session.Run(Ort::RunOptions{nullptr}, input_names, &input, 1, output_names, 1);
  const std::vector<int64_t> shape = outputs[0].GetTensorTypeAndShapeInfo().GetShape();  // [1, T, classes]
  ASSERT_EQ(shape.size(), 3u);
  std::ifstream expected_file(test::TestModelsDir() / "ocr_rec_input.txt");
  const std::string expected((std::istreambuf_iterator<char>(expected_file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(CtcDecode(outputs[0].GetTensorData<float>(), shape[1], shape[2], ReadLines(kOcrDir / "ppocr_keys_v1.txt")),
            expected);
}

}  // namespace
}  // namespace modelkit
