// The generated test models on the CPU EP against their numpy reference outputs: proves the fixtures (and the
// comparison helper) before other EPs are judged by them.
#include <gtest/gtest.h>

#include "modelkit/ort/runtime.h"
#include "support/model_case.h"

namespace modelkit {
namespace {

class CpuReferenceModels : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuReferenceModels, MatchNumpy) {
  const test::ModelCase model_case = test::LoadModelCase(GetParam());
  Ort::Env& env = ort::SharedEnv();
  Ort::SessionOptions options;
  Ort::Session session(env, model_case.model.c_str(), options);
  test::ExpectCaseOutputs(session, model_case);
}

INSTANTIATE_TEST_SUITE_P(Models, CpuReferenceModels,
                         ::testing::Values("matmul_add", "matmul_nbits", "gqa_prompt", "gqa_with_past"));

}  // namespace
}  // namespace modelkit
