// Heap allocations in the decode loop, counted: a decode step of modelkit's generator allocates no more than ONNX
// Runtime's own Run does when every tensor is bound in advance, for the flat layout and for a pipeline. The floor is
// measured with a bare loop that binds the shared KV, ids and logits once and keeps one attention-mask view per length,
// so every allocation it sees is ORT's; anything modelkit's loop adds (a tensor, a vector growing, a binding, a string)
// shows as a difference. Each loop has its own session of the same bundle: ORT caches a memory plan per input shape,
// and a Run with a shape the session has seen allocates less, so both must meet every shape for the first time.
//
// Every session runs on one intra-op thread: with a thread pool, ORT's own count is not repeatable (how the pool
// splits work, and so what it allocates, depends on timing: a pipeline's three pools drifted by 53 over 32 steps
// under a parallel ctest). On the calling thread alone it repeats to within a few, so the bound allows a few stray
// allocations. Anything modelkit allocated per step would add at least one per measured step, far above the slack.
//
// Counting replaces the C allocator in this program (malloc and its family forward to glibc's __libc_ entry points),
// which the sanitizers also replace: under them the test is not built in (see tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"
#include "support/generate_fixtures.h"
#include "support/temp_dir.h"

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);
}

namespace {

std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};

void Count() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

extern "C" {
void* malloc(size_t size) {
  Count();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  Count();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t size) {
  Count();
  return __libc_realloc(pointer, size);
}
void* memalign(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  Count();
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}
void free(void* pointer) { __libc_free(pointer); }
}

namespace modelkit::test {
namespace {

constexpr int kPromptLength = 8;
constexpr int kWarmupSteps = 8;
constexpr int kMeasuredSteps = 32;
// Allocations ORT may make in one loop and not the other: less than one per step, so a per-step allocation fails.
constexpr long kOrtJitter = kMeasuredSteps / 4;

// Allocations made while `body` runs, on any thread.
template <typename Body>
long CountAllocations(Body&& body) {
  g_allocations = 0;
  g_counting = true;
  body();
  g_counting = false;
  return g_allocations.load();
}

// A past/present name pattern ("...%d...") for `layer`.
std::string Named(const std::string& pattern, int64_t layer) {
  std::string name = pattern;
  name.replace(name.find("%d"), 2, std::to_string(layer));
  return name;
}

// The floor: decode steps on `model`'s decoder session with everything bound in advance.
class BareDecodeLoop {
 public:
  BareDecodeLoop(const generate::Model& model, int64_t max_length)
      : session_(*model.stages().front().session), binding_(session_) {
    const generate::DecoderConfig& decoder = model.config().decoder;
    const generate::TensorNames& names = decoder.names;
    const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    const int64_t kv_shape[] = {1, decoder.num_key_value_heads, max_length, decoder.head_size};
    const size_t kv_elements = static_cast<size_t>(decoder.num_key_value_heads * max_length * decoder.head_size);
    mask_.assign(static_cast<size_t>(max_length), 1);
    for (int64_t length = 1; length <= max_length; ++length) {
      const int64_t shape[] = {1, length};
      mask_views_.push_back(Ort::Value::CreateTensor<int64_t>(memory, mask_.data(), mask_.size(), shape, 2));
    }
    const int64_t one_by_one[] = {1, 1};
    binding_.BindInput(names.input_ids.c_str(), Ort::Value::CreateTensor<int64_t>(memory, &id_, 1, one_by_one, 2));
    logits_.resize(static_cast<size_t>(model.config().vocab_size));
    const int64_t logits_shape[] = {1, 1, model.config().vocab_size};
    binding_.BindOutput(names.logits.c_str(),
                        Ort::Value::CreateTensor<float>(memory, logits_.data(), logits_.size(), logits_shape, 3));
    for (int64_t layer = 0; layer < decoder.num_hidden_layers; ++layer) {
      for (const auto& [past, present] : {std::pair{names.past_key_names, names.present_key_names},
                                          std::pair{names.past_value_names, names.present_value_names}}) {
        std::vector<float>& buffer = kv_.emplace_back(kv_elements, 0.0f);
        Ort::Value view = Ort::Value::CreateTensor<float>(memory, buffer.data(), buffer.size(), kv_shape, 4);
        binding_.BindInput(Named(past, layer).c_str(), view);
        binding_.BindOutput(Named(present, layer).c_str(), view);
      }
    }
    mask_name_ = names.attention_mask;
  }

  // Feeds token `id` at position `past_length`.
  void Step(int64_t id, int64_t past_length) {
    id_ = id;
    binding_.BindInput(mask_name_.c_str(), mask_views_[static_cast<size_t>(past_length)]);
    session_.Run(run_options_, binding_);  // a null RunOptions would make ORT create one per call
  }

 private:
  Ort::Session& session_;
  Ort::IoBinding binding_;
  Ort::RunOptions run_options_;
  int64_t id_ = 0;
  std::vector<int64_t> mask_;
  std::vector<Ort::Value> mask_views_;  // [i]: the mask of length i + 1
  std::vector<float> logits_;
  std::vector<std::vector<float>> kv_;
  std::string mask_name_;
};

// The floor of a pipeline: its token stages in order, everything bound in advance: ids, the mask view of the step,
// the static KV buffers (shared by the stages that name them), the logits, and [1, 1, hidden] buffers for every
// tensor one stage hands to the next.
class BarePipelineLoop {
 public:
  explicit BarePipelineLoop(const generate::Model& model) {
    const generate::DecoderConfig& decoder = model.config().decoder;
    const generate::TensorNames& names = decoder.names;
    const int64_t length = model.fixed_kv_length();
    const Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    mask_.assign(static_cast<size_t>(length), 1);
    for (int64_t n = 1; n <= length; ++n) {
      const int64_t shape[] = {1, n};
      mask_views_.push_back(Ort::Value::CreateTensor<int64_t>(memory, mask_.data(), mask_.size(), shape, 2));
    }
    const int64_t kv_shape[] = {1, decoder.num_key_value_heads, length, decoder.head_size};
    const size_t kv_elements = static_cast<size_t>(decoder.num_key_value_heads * length * decoder.head_size);
    std::map<std::string, size_t> kv_index;  // past and present names -> buffer
    for (int64_t layer = 0; layer < decoder.num_hidden_layers; ++layer) {
      for (const auto& [past, present] : {std::pair{names.past_key_names, names.present_key_names},
                                          std::pair{names.past_value_names, names.present_value_names}}) {
        kv_index[Named(past, layer)] = kv_index[Named(present, layer)] = kv_.size();
        kv_.emplace_back(kv_elements, 0.0f);
      }
    }
    logits_.resize(static_cast<size_t>(model.config().vocab_size));
    const int64_t one_by_one[] = {1, 1};
    const int64_t logits_shape[] = {1, 1, model.config().vocab_size};
    const int64_t hidden_shape[] = {1, 1, decoder.hidden_size};
    const auto view = [&](std::vector<float>& buffer, const int64_t* shape, size_t rank) {
      return Ort::Value::CreateTensor<float>(memory, buffer.data(), buffer.size(), shape, rank);
    };
    const auto handed = [&](const std::string& name) -> std::vector<float>& {
      std::vector<float>& buffer = handed_[name];
      buffer.resize(static_cast<size_t>(decoder.hidden_size));
      return buffer;
    };
    for (const generate::LoadedStage& stage : model.stages()) {
      if (!stage.config.run_on_token_gen) continue;
      Ort::IoBinding& binding = bindings_.emplace_back(*stage.session);
      sessions_.push_back(stage.session.get());
      bool takes_mask = false;
      for (const std::string& input : stage.config.inputs) {
        if (input == names.input_ids) {
          binding.BindInput(input.c_str(), Ort::Value::CreateTensor<int64_t>(memory, &id_, 1, one_by_one, 2));
        } else if (input == names.attention_mask) {
          takes_mask = true;
        } else if (const auto kv = kv_index.find(input); kv != kv_index.end()) {
          binding.BindInput(input.c_str(), view(kv_[kv->second], kv_shape, 4));
        } else {
          binding.BindInput(input.c_str(), view(handed(input), hidden_shape, 3));
        }
      }
      takes_mask_.push_back(takes_mask);
      for (const std::string& output : stage.config.outputs) {
        if (output == names.logits) {
          binding.BindOutput(output.c_str(), view(logits_, logits_shape, 3));
        } else if (const auto kv = kv_index.find(output); kv != kv_index.end()) {
          binding.BindOutput(output.c_str(), view(kv_[kv->second], kv_shape, 4));
        } else {
          const auto forwarded = stage.config.output_names_forwarder.find(output);
          const std::string& name = forwarded == stage.config.output_names_forwarder.end() ? output : forwarded->second;
          binding.BindOutput(output.c_str(), view(handed(name), hidden_shape, 3));
        }
      }
    }
    mask_name_ = names.attention_mask;
  }

  // Feeds token `id` at position `past_length` through every token stage.
  void Step(int64_t id, int64_t past_length) {
    id_ = id;
    for (size_t i = 0; i < bindings_.size(); ++i) {
      if (takes_mask_[i]) bindings_[i].BindInput(mask_name_.c_str(), mask_views_[static_cast<size_t>(past_length)]);
      sessions_[i]->Run(run_options_, bindings_[i]);
    }
  }

 private:
  std::vector<Ort::Session*> sessions_;
  std::vector<Ort::IoBinding> bindings_;
  std::vector<bool> takes_mask_;
  Ort::RunOptions run_options_;
  int64_t id_ = 0;
  std::vector<int64_t> mask_;
  std::vector<Ort::Value> mask_views_;  // [i]: the mask of length i + 1
  std::vector<float> logits_;
  std::vector<std::vector<float>> kv_;
  std::map<std::string, std::vector<float>> handed_;  // stage-to-stage tensors by (forwarded) name
  std::string mask_name_;
};

// Allocations of kMeasuredSteps decode steps of modelkit's generator on `model` (after a prompt and warm-up steps).
long ModelkitDecodeAllocations(const generate::Model& model, int max_new_tokens) {
  generate::GenerateOptions generate_options;
  generate_options.do_sample = false;
  generate_options.ignore_eos = true;
  generate_options.max_new_tokens = max_new_tokens;
  generate::Generator generator(model, generate_options);
  const std::vector<int32_t> prompt = {1, 17, 42, 99, 5, 200, 31, 7};
  EXPECT_EQ(prompt.size(), static_cast<size_t>(kPromptLength));
  generator.Prefill(prompt);
  for (int i = 0; i < kWarmupSteps; ++i) generator.Step();
  const long allocations = CountAllocations([&] {
    for (int i = 0; i < kMeasuredSteps; ++i) generator.Step();
  });
  EXPECT_FALSE(generator.done());  // every measured call was a decode step
  return allocations;
}

// Allocations of kMeasuredSteps steps of a bare loop (after warm-up steps), fed from position kPromptLength.
template <typename Loop>
long BareDecodeAllocations(Loop& loop) {
  int64_t position = kPromptLength;
  for (int i = 0; i < kWarmupSteps; ++i) loop.Step(i, position++);
  return CountAllocations([&] {
    for (int i = 0; i < kMeasuredSteps; ++i) loop.Step(i, position++);
  });
}

void ExpectNoMoreThanOrt(long modelkit, long ort) {
  ::testing::Test::RecordProperty("modelkit_allocations_per_step",
                                  std::to_string(static_cast<double>(modelkit) / kMeasuredSteps));
  ::testing::Test::RecordProperty("ort_allocations_per_step",
                                  std::to_string(static_cast<double>(ort) / kMeasuredSteps));
  std::printf("allocations over %d decode steps: modelkit %ld, ORT Run alone %ld\n", kMeasuredSteps, modelkit, ort);
  EXPECT_LE(modelkit, ort + kOrtJitter);
}

// A tiny bundle of `layout` built under `dir`, every session on one intra-op thread; loaded without its tokenizer
// (twice: each loop gets its own sessions).
std::filesystem::path BuildTinyBundle(const std::filesystem::path& dir, builder::Layout layout) {
  const auto options = TinyGenerateOptions(dir, layout);
  builder::BuildBundle(options);
  EditGenaiConfig(options.output_dir, [](nlohmann::ordered_json& config) {
    nlohmann::ordered_json& decoder = config["model"]["decoder"];
    decoder["session_options"]["intra_op_num_threads"] = 1;
    if (!decoder.contains("pipeline")) return;
    for (nlohmann::ordered_json& stages : decoder["pipeline"]) {
      for (auto& [name, stage] : stages.items()) stage["session_options"]["intra_op_num_threads"] = 1;
    }
  });
  return options.output_dir;
}
std::unique_ptr<generate::Model> LoadWithoutTokenizer(const std::filesystem::path& bundle) {
  generate::LoadOptions load;
  load.load_tokenizer = false;
  return generate::Model::Load(bundle, load);
}

constexpr int kMaxNewTokens = 2 + kWarmupSteps + kMeasuredSteps;  // not done after the last measured step

TEST(GenerateAllocationTest, DecodeStepAllocatesNoMoreThanOrtRunItself) {
  TempDir tmp;
  const std::filesystem::path bundle = BuildTinyBundle(tmp.path() / "flat", builder::Layout::kFlat);
  const auto model = LoadWithoutTokenizer(bundle);
  // The tiny bundle has no position_ids or sequence-length inputs and fp32 KV: what the bare loop binds.
  const std::vector<std::string>& inputs = model->stages().front().session_inputs;
  ASSERT_EQ(std::count(inputs.begin(), inputs.end(), model->config().decoder.names.position_ids), 0);
  ASSERT_EQ(model->kv_type(), ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  ASSERT_TRUE(model->config().search.past_present_share_buffer);
  const long modelkit = ModelkitDecodeAllocations(*model, kMaxNewTokens);

  const auto floor_model = LoadWithoutTokenizer(bundle);
  BareDecodeLoop floor(*floor_model, kPromptLength + kMaxNewTokens);
  ExpectNoMoreThanOrt(modelkit, BareDecodeAllocations(floor));
}

// The pipeline layout (embeddings, iter, lm_head in token steps): the hidden states handed from stage to stage go to
// buffers of modelkit's own once their shape is known, so a step allocates no more than the stages' Runs.
TEST(GenerateAllocationTest, PipelineDecodeStepAllocatesNoMoreThanOrtRunsThemselves) {
  TempDir tmp;
  const std::filesystem::path bundle = BuildTinyBundle(tmp.path() / "pipeline", builder::Layout::kPipeline);
  const auto model = LoadWithoutTokenizer(bundle);
  ASSERT_TRUE(model->config().IsPipeline());
  ASSERT_GT(model->fixed_kv_length(), 0);
  const long modelkit = ModelkitDecodeAllocations(*model, kMaxNewTokens);

  const auto floor_model = LoadWithoutTokenizer(bundle);
  BarePipelineLoop floor(*floor_model);
  ExpectNoMoreThanOrt(modelkit, BareDecodeAllocations(floor));
}

}  // namespace
}  // namespace modelkit::test
