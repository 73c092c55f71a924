#include "support/generate_fixtures.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "builder/int4.h"
#include "builder/random_weights.h"
#include "modelkit/base/files.h"
#include "support/build_fixtures.h"

namespace modelkit::test {
namespace {

// MatMulNBits blocks dequantised independently of the quantiser: low nibble first, zero point 8 unless given.
std::vector<float> Dequantize(const builder::Int4Weight& q) {
  std::vector<float> w(static_cast<size_t>(q.n * q.k));
  const int64_t zp_per_row = (q.blocks_per_row + 1) / 2;
  for (int64_t r = 0; r < q.n; ++r) {
    for (int64_t c = 0; c < q.k; ++c) {
      const int64_t b = c / q.block_size, i = c % q.block_size;
      const uint8_t byte = q.packed[static_cast<size_t>((r * q.blocks_per_row + b) * (q.block_size / 2) + i / 2)];
      const int nibble = i % 2 == 0 ? (byte & 0x0F) : (byte >> 4);
      int zero_point = 8;
      if (!q.zero_points.empty()) {
        const uint8_t zp = q.zero_points[static_cast<size_t>(r * zp_per_row + b / 2)];
        zero_point = b % 2 == 0 ? (zp & 0x0F) : (zp >> 4);
      }
      w[static_cast<size_t>(r * q.k + c)] =
          static_cast<float>(nibble - zero_point) * q.scales[static_cast<size_t>(r * q.blocks_per_row + b)];
    }
  }
  return w;
}

}  // namespace

builder::BuildOptions TinyGenerateOptions(const std::filesystem::path& out, builder::Layout layout,
                                          builder::Precision precision, int64_t context_length) {
  builder::BuildOptions options;
  options.output_dir = out;
  options.random = true;
  options.random_spec = TinySpec(builder::Arch::kLlama);
  options.seed = 11;
  options.context_length = context_length;
  options.layout = layout;
  options.precision = precision;
  options.int4_accuracy_level = 0;  // fp32 math: the dequantised reference is exact up to rounding
  return options;
}

ReferenceDecoder BuildWithReference(const builder::BuildOptions& options) {
  const builder::BuildResult result = builder::BuildBundle(options);
  const builder::ModelSpec& spec = result.spec;
  ReferenceConfig config = ReferenceConfigFor(spec);
  if (options.precision != builder::Precision::kInt4) {
    return ReferenceDecoder(config, ReferenceWeightsFrom(spec, builder::RandomWeights(spec, options.seed)));
  }
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const builder::TensorRef& ref : builder::ExpectedTensors(spec)) shapes[ref.name] = ref.shape;
  const auto quantise = [&](std::vector<float>& w, int64_t n, int64_t k) {
    w = Dequantize(builder::QuantizeInt4(w, n, k, options.block_size, options.int4_symmetric));
  };
  ReferenceWeights weights =
      ReferenceWeightsFrom(spec, builder::RandomWeights(spec, options.seed), [&](const std::string& name, auto& w) {
        if (name.find("_proj.weight") != std::string::npos || name == "lm_head.weight") {
          quantise(w, shapes.at(name)[0], shapes.at(name)[1]);
        }
      });
  if (spec.tie_word_embeddings) {  // the bundle's lm_head is a quantised copy of the embeddings
    std::vector<float> head = weights["model.embed_tokens.weight"];
    quantise(head, spec.vocab_size, spec.hidden_size);
    weights["lm_head.weight"] = head;
    config.tie_word_embeddings = false;
  }
  return ReferenceDecoder(config, std::move(weights));
}

std::vector<int32_t> ReferenceGreedy(ReferenceDecoder reference, const std::vector<int32_t>& prompt, int count) {
  std::vector<float> logits;
  for (const int32_t token : prompt) logits = reference.Step(token);
  std::vector<int32_t> tokens;
  for (int i = 0; i < count; ++i) {
    const int32_t next = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    tokens.push_back(next);
    if (i + 1 < count) logits = reference.Step(next);
  }
  return tokens;
}

void EditGenaiConfig(const std::filesystem::path& bundle, const std::function<void(nlohmann::ordered_json&)>& edit) {
  const std::filesystem::path path = bundle / "genai_config.json";
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(ReadTextFile(path, "genai config"));
  edit(config);
  std::ofstream(path) << config.dump(2);
}

}  // namespace modelkit::test
