// modelkit's decode attention inside ONNX Runtime: a GroupQueryAttention graph run by ORT as written and as rewritten
// to modelkit's op, over a prompt and then one decode step after another with K/V buffers shared between past and
// present (as generation runs it), gives the same output and cache bits at every step; only nodes the op computes
// exactly are rewritten.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "generate/decode_attention_kernel.h"
#include "generate/kernel_rewrites.h"
#include "support/attention_graph.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& expected, const char* what) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t got_bits = 0, expected_bits = 0;
    std::memcpy(&got_bits, &got[i], sizeof(float));
    std::memcpy(&expected_bits, &expected[i], sizeof(float));
    ASSERT_EQ(got_bits, expected_bits) << what << " element " << i << ": " << got[i] << " vs ORT's " << expected[i];
  }
}

class DecodeAttentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!generate::DecodeAttentionSupported()) GTEST_SKIP() << "this CPU lacks AVX-512";
  }
};

// Bit for bit at every step: the prompt runs ORT's own kernel inside the op, each decode step modelkit's. The shapes
// cover query heads per KV head from 1 to 6, head sizes 16 to 128 (one to sixteen rounds of the eight running sums),
// and positions through whole and partial groups of 8 (scored together, decode_attention_kernel.cpp) and of 16 (the
// lanes of the exponentials' sum).
TEST_F(DecodeAttentionTest, RewrittenGraphComputesWhatGroupQueryAttentionComputesBitForBit) {
  TempDir tmp;
  std::mt19937 random(17);
  std::normal_distribution<float> activation(0.0f, 1.5f);
  for (const AttentionShape shape :
       {AttentionShape{}, AttentionShape{.num_heads = 16, .kv_num_heads = 8, .head_size = 128},
        AttentionShape{.num_heads = 6, .kv_num_heads = 1, .head_size = 32},
        AttentionShape{.num_heads = 3, .kv_num_heads = 3, .head_size = 16}}) {
    SCOPED_TRACE("heads " + std::to_string(shape.num_heads) + "/" + std::to_string(shape.kv_num_heads) + ", size " +
                 std::to_string(shape.head_size));
    const std::string original = WriteAttentionGraph(tmp.path(), shape);
    const auto rewritten = generate::UseDecodeAttentionKernel(original);
    ASSERT_TRUE(rewritten);
    EXPECT_EQ(rewritten->replaced, 1u);
    AttentionRun ort(original, tmp.path(), shape), own(rewritten->model, tmp.path(), shape);
    int32_t past = 0;
    const std::vector<int64_t> steps = [&] {
      std::vector<int64_t> s = {5};  // the prompt, then one token at a time to the end of the cache
      for (int64_t p = 5; p < shape.cache_length; ++p) s.push_back(1);
      return s;
    }();
    for (const int64_t tokens : steps) {
      auto draw = [&](int64_t heads) {
        std::vector<float> values(static_cast<size_t>(tokens * heads * shape.head_size));
        for (float& v : values) v = activation(random);
        return values;
      };
      const std::vector<float> query = draw(shape.num_heads), key = draw(shape.kv_num_heads),
                               value = draw(shape.kv_num_heads);
      SCOPED_TRACE("position " + std::to_string(past));
      ExpectSameBits(own.Step(query, key, value, tokens, past), ort.Step(query, key, value, tokens, past), "output");
      ExpectSameBits(own.keys(), ort.keys(), "present_key");
      ExpectSameBits(own.values(), ort.values(), "present_value");
      past += static_cast<int32_t>(tokens);
    }
  }
}

TEST_F(DecodeAttentionTest, LeavesNodesItDoesNotComputeExactly) {
  TempDir tmp;
  EXPECT_FALSE(generate::UseDecodeAttentionKernel(WriteAttentionGraph(tmp.path(), {.interleaved = true})));
  EXPECT_FALSE(generate::UseDecodeAttentionKernel(WriteAttentionGraph(tmp.path(), {.local_window = true})));
}

}  // namespace
}  // namespace modelkit::test
