#include "modelkit/generate/generator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "modelkit/base/check.h"
#include "modelkit/base/error.h"
#include "modelkit/tokenizer/streaming_decoder.h"
#include "repetition_penalty.h"

namespace modelkit::generate {
namespace {

SamplingOptions SamplingFrom(const SearchConfig& search, const GenerateOptions& options) {
  SamplingOptions sampling;
  sampling.do_sample = options.do_sample.value_or(search.do_sample);
  sampling.temperature = options.temperature.value_or(search.temperature);
  sampling.top_k = options.top_k.value_or(search.top_k);
  sampling.top_p = options.top_p.value_or(search.top_p);
  // Written so that NaN fails too.
  if (!(sampling.temperature >= 0 && std::isfinite(sampling.temperature))) {
    throw UsageError("temperature must be a finite number >= 0");
  }
  if (!(sampling.top_p > 0 && sampling.top_p <= 1)) throw UsageError("top_p must be in (0, 1]");
  if (sampling.top_k < 0) throw UsageError("top_k must be >= 0 (0: no top-k limit)");
  return sampling;
}

uint64_t SeedFrom(const SearchConfig& search, const GenerateOptions& options) {
  if (options.seed) return *options.seed;
  if (search.random_seed) return *search.random_seed;
  return std::random_device{}();
}

// The positions the model can hold at all: the context, or a static KV cache's length.
int64_t ContextCapacity(const Model& model) {
  const int64_t context = model.config().context_length;
  return model.fixed_kv_length() > 0 ? std::min(context, model.fixed_kv_length()) : context;
}

// The positions the runner can hold: the requested max length within the context and a fixed KV length.
int64_t Capacity(const Model& model, const GenerateOptions& options) {
  const GenaiConfig& config = model.config();
  int64_t capacity = config.MaxLength();
  if (options.max_length) {
    if (*options.max_length <= 0) throw UsageError("max_length must be > 0");
    capacity = std::min(capacity, *options.max_length);
  }
  if (model.fixed_kv_length() > 0) capacity = std::min(capacity, model.fixed_kv_length());
  return capacity;
}

tokenizer::DecodeOptions SkipSpecial() {
  tokenizer::DecodeOptions options;
  options.skip_special_tokens = true;  // as onnxruntime-genai decodes
  return options;
}

}  // namespace

Generator::Generator(const Model& model, const GenerateOptions& options)
    : model_(model), sampler_(SamplingFrom(model.config().search, options), SeedFrom(model.config().search, options)) {
  const Clock::time_point start = Clock::now();
  const GenaiConfig& config = model.config();
  repetition_penalty_ = options.repetition_penalty.value_or(config.search.repetition_penalty);
  if (!(repetition_penalty_ > 0 && std::isfinite(repetition_penalty_))) {
    throw UsageError("repetition_penalty must be a finite number > 0");
  }
  for (const int64_t id : config.eos_token_ids) stop_.eos_ids.push_back(static_cast<int32_t>(id));
  if (stop_.eos_ids.empty() && model.tokenizer()) stop_.eos_ids = model.tokenizer()->config().eos_token_ids;
  stop_.ignore_eos = options.ignore_eos;
  stop_.max_length = Capacity(model, options);
  if (options.max_new_tokens) {
    if (*options.max_new_tokens < 0) throw UsageError("max_new_tokens must be >= 0");
    stop_.max_new_tokens = options.max_new_tokens;
  }
  stop_.min_length = options.min_length.value_or(config.search.min_length);
  timings_.generator_creation_ns = NanosSince(start);
}

bool Generator::context_full() const {
  return stop_reason_ == StopReason::kMaxLength && stop_.max_length >= ContextCapacity(model_);
}

int64_t Generator::PositionsNeeded(int64_t prompt_length) const {
  // The last chosen token is never fed, so a generation feeds at most prompt + max_new_tokens - 1 positions.
  if (!stop_.max_new_tokens) return stop_.max_length;
  return std::min(stop_.max_length, prompt_length + std::max<int64_t>(*stop_.max_new_tokens, 1));
}

int32_t Generator::Choose(std::span<const float> logits) {
  const bool penalise = repetition_penalty_ != 1.0;
  const bool mask_eos = !stop_.eos_ids.empty() && static_cast<int64_t>(sequence_.size()) < stop_.min_length;
  if (!penalise && !mask_eos) return sampler_.Pick(logits);
  scratch_.assign(logits.begin(), logits.end());
  ApplyRepetitionPenalty(scratch_, sequence_, repetition_penalty_);
  if (mask_eos) {
    for (const int32_t eos : stop_.eos_ids) {
      if (eos >= 0 && static_cast<size_t>(eos) < scratch_.size()) {
        scratch_[static_cast<size_t>(eos)] = -std::numeric_limits<float>::infinity();
      }
    }
  }
  return sampler_.Pick(scratch_);
}

void Generator::Accept(int32_t token) {
  generated_.push_back(token);
  sequence_.push_back(token);
  stop_reason_ = stop_.Check(token, static_cast<int64_t>(sequence_.size()), static_cast<int64_t>(generated_.size()));
}

void Generator::Prefill(std::span<const int32_t> prompt) {
  MODELKIT_CHECK(!prefilled_);  // one prompt per generator
  if (prompt.empty()) throw UsageError("the prompt has no tokens; give a non-empty prompt");
  const int64_t length = static_cast<int64_t>(prompt.size());
  if (length > stop_.max_length) {
    throw UsageError("the prompt has " + std::to_string(length) + " tokens but the model holds at most " +
                     std::to_string(stop_.max_length) + " (context_length / max_length); shorten the prompt");
  }
  const int64_t vocab = model_.config().vocab_size;
  for (const int32_t id : prompt) {
    if (id < 0 || id >= vocab) {
      throw UsageError("prompt token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                       std::to_string(vocab - 1) + ")");
    }
  }
  prefilled_ = true;
  prompt_.assign(prompt.begin(), prompt.end());
  sequence_ = prompt_;
  if (length == stop_.max_length) {
    stop_reason_ = StopReason::kMaxLength;
    return;
  }
  if (stop_.max_new_tokens && *stop_.max_new_tokens == 0) {
    stop_reason_ = StopReason::kMaxNewTokens;
    return;
  }
  const Clock::time_point created = Clock::now();
  const int64_t positions = PositionsNeeded(length);
  runner_ = MakeDecoderRunner(model_, positions);
  // Room for every step, so that decoding never grows a vector.
  const size_t steps = static_cast<size_t>(positions - length + 1);
  generated_.reserve(steps);
  sequence_.reserve(static_cast<size_t>(positions + 1));
  timings_.decode_step_ns.reserve(steps);
  timings_.decode_ort_ns.reserve(steps);
  timings_.generator_creation_ns += NanosSince(created);
  const std::vector<int64_t> ids(prompt.begin(), prompt.end());
  const Clock::time_point start = Clock::now();
  const std::span<const float> logits = runner_->Run(ids);
  timings_.prefill_ns = NanosSince(start);
  Accept(Choose(logits));
  timings_.first_token_ns = NanosSince(start);
}

void Generator::Step() {
  MODELKIT_CHECK(prefilled_ && !done());
  const int64_t last = generated_.back();
  const Clock::time_point start = Clock::now();
  const std::span<const float> logits = runner_->Run(std::span<const int64_t>(&last, 1));
  Accept(Choose(logits));
  timings_.decode_step_ns.push_back(NanosSince(start));
  timings_.decode_ort_ns.push_back(runner_->last_ort_ns());
}

const GenerationTimings& Generator::timings() {
  if (runner_) timings_.stages = runner_->stage_timings();
  return timings_;
}

GenerationResult Generate(const Model& model, std::span<const int32_t> prompt, const GenerateOptions& options,
                          const std::function<void(std::string_view)>& on_text,
                          const std::function<bool()>& cancelled) {
  Generator generator(model, options);
  GenerationResult result;
  const tokenizer::Tokenizer* tokenizer = model.tokenizer();
  std::optional<tokenizer::StreamingDecoder> stream;
  if (tokenizer && on_text) stream.emplace(*tokenizer, SkipSpecial());
  size_t streamed = 0;
  const auto emit = [&] {
    for (; stream && streamed < generator.generated().size(); ++streamed) {
      const std::string piece = stream->Step(generator.generated()[streamed]);
      if (!piece.empty()) on_text(piece);
    }
  };
  generator.Prefill(prompt);
  emit();
  while (!generator.done() && !(cancelled && cancelled())) {
    generator.Step();
    emit();
  }
  if (stream) {
    const std::string rest = stream->Flush();
    if (!rest.empty()) on_text(rest);
  }
  result.prompt_ids = generator.prompt();
  result.generated_ids = generator.generated();
  result.stop_reason = generator.stop_reason();
  result.context_full = generator.context_full();
  result.kv_cache_bytes = generator.kv_cache_bytes();
  result.timings = generator.timings();
  if (tokenizer) {
    const Clock::time_point start = Clock::now();
    result.text = tokenizer->Decode(result.generated_ids, SkipSpecial());
    result.timings.detokenize_ns = NanosSince(start);
  }
  return result;
}

}  // namespace modelkit::generate
