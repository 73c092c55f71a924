#include "modelkit/perf/genai_benchmark.h"

#include <algorithm>

#include "modelkit/base/error.h"
#include "modelkit/base/phase.h"
#include "modelkit/generate/generator.h"
#include "modelkit/perf/process_memory.h"
#include "modelkit/session/prompt_template.h"

namespace modelkit::perf {
namespace {

using generate::Clock;
using generate::NanosSince;
using report::GenaiLoadSample;
using report::GenaiMemorySample;
using report::GenaiRequestSample;
using report::GenaiStageTime;

session::TemplateMode TemplateModeOf(const std::optional<bool>& apply_template) {
  if (!apply_template) return session::TemplateMode::kAuto;
  return *apply_template ? session::TemplateMode::kApply : session::TemplateMode::kNever;
}

// What ran, from the session after load. `monitor` is left to the caller.
GenaiBenchmarkInfo InfoOf(const session::GenaiSession& session, const GenaiPerfOptions& options,
                          bool template_applied) {
  const session::GenaiSessionOptions& asked = session.options();
  GenaiBenchmarkInfo info;
  info.options = options;
  info.bundle_dir = asked.bundle_dir.string();
  info.running_model_path = session.load_dir().string();
  info.device = asked.device;
  info.effective_ep = session.effective_ep();
  if (!session.effective_device().empty()) info.effective_device = session.effective_device();
  info.compile = asked.compile;
  info.compile_timeout_s = std::chrono::duration<double>(asked.compiler.timeout).count();
  for (const compile::StageCompileReport& stage : session.compile_reports()) {
    if (stage.outcome != compile::StageCompileOutcome::kFailed) info.compiled_stages.push_back(stage.stage);
  }
  info.template_applied = template_applied;
  info.context_length = session.model().config().context_length;
  if (const auto& window = session.model().config().decoder.sliding_window) info.window_size = window->window_size;
  for (const generate::LoadedStage& stage : session.model().stages()) {
    if (stage.placement) info.placement.push_back(*stage.placement);
    info.threading.push_back(
        {stage.config.name, stage.intra_op_threads, stage.intra_op_spinning, stage.intra_op_shared_pool});
    if (stage.last_position_logits) info.last_position_logits_stages.push_back(stage.config.name);
    if (stage.int4_matmul_nodes > 0) info.int4_cpu_kernel_stages.push_back(stage.config.name);
    if (stage.fp32_matmul_nodes > 0) info.fp32_cpu_kernel_stages.push_back(stage.config.name);
    if (stage.attention_nodes > 0) info.attention_cpu_kernel_stages.push_back(stage.config.name);
  }
  info.fail_on_fallback = asked.fail_on_fallback;
  info.warnings = session.warnings();
  return info;
}

int64_t Sum(const std::vector<int64_t>& values) {
  int64_t total = 0;
  for (const int64_t value : values) total += value;
  return total;
}

// One request, every span measured around exactly its own work.
GenaiRequestSample RunRequest(const generate::Model& model, const session::PromptTemplate& chat,
                              const GenaiPerfOptions& options, std::string* response) {
  GenaiRequestSample sample;
  std::vector<int32_t> prompt = options.prompt_ids;
  Clock::time_point t;
  if (prompt.empty()) {
    t = Clock::now();
    const std::string text = chat.Render(options.prompt);
    sample.template_ns = NanosSince(t);
    t = Clock::now();
    prompt = model.tokenizer()->Encode(text);
    sample.tokenization_ns = NanosSince(t);
    if (prompt.empty()) throw UsageError("the prompt tokenises to no tokens; give a non-empty --prompt");
  }

  generate::GenerateOptions generate_options;
  generate_options.max_new_tokens = options.max_new_tokens;
  generate_options.do_sample = false;  // benchmarks are greedy, as winml-cli's
  generate_options.ignore_eos = options.ignore_eos;
  generate::Generator generator(model, generate_options);
  generator.Prefill(prompt);
  while (!generator.done()) generator.Step();
  const generate::GenerationTimings& timings = generator.timings();

  t = Clock::now();
  const std::vector<int32_t> generated = generator.generated();
  sample.sequence_fetch_ns = NanosSince(t);
  if (model.tokenizer() != nullptr) {  // none for a tokenizer-less bundle run on --prompt-ids
    t = Clock::now();
    tokenizer::DecodeOptions decode;
    decode.skip_special_tokens = true;
    std::string decoded = model.tokenizer()->Decode(generated, decode);
    sample.detokenization_ns = NanosSince(t);
    if (response != nullptr) *response = std::move(decoded);
  }

  FillFromGeneration(sample, timings, static_cast<int64_t>(prompt.size()), static_cast<int64_t>(generated.size()),
                     generator.context_full());
  return sample;
}

}  // namespace

GenaiLoadSample LoadSampleOf(const session::GenaiSession& session, int64_t session_load_ns) {
  const session::SessionLoadTimings& timings = session.load_timings();
  const generate::LoadTimings& native = session.model().load_timings();
  GenaiLoadSample load;
  load.session_load_ns = session_load_ns;
  load.ep_registration_ns = timings.ep_registration_ns;
  load.bundle_prepare_ns = timings.bundle_prepare_ns;
  load.native_load_ns = timings.native_load_ns;
  load.config_create_ns = native.config_ns;
  load.model_create_ns = native.sessions_ns;
  load.tokenizer_create_ns = native.tokenizer_ns;
  load.stage_session_ns = native.session_ns;
  return load;
}

std::vector<int32_t> SyntheticPromptIds(const generate::Model& model, int64_t count) {
  std::vector<int32_t> pool;
  if (const tokenizer::Tokenizer* tokenizer = model.tokenizer()) {
    for (int32_t id : tokenizer->Encode(report::kDefaultGenaiPrompt)) {
      if (!tokenizer->IsSpecial(id)) pool.push_back(id);
    }
  }
  if (pool.empty()) {
    const int64_t vocab = std::max<int64_t>(model.config().vocab_size, 101);
    for (int64_t id = 100; id < std::min<int64_t>(vocab, 1100); ++id) pool.push_back(static_cast<int32_t>(id));
  }
  std::vector<int32_t> ids;
  ids.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) ids.push_back(pool[static_cast<size_t>(i) % pool.size()]);
  return ids;
}

void FillFromGeneration(GenaiRequestSample& sample, const generate::GenerationTimings& timings, int64_t prompt_tokens,
                        int64_t generated_tokens, bool context_full) {
  sample.prompt_tokens = prompt_tokens;
  sample.generated_tokens = generated_tokens;
  sample.context_full = context_full;
  sample.generator_create_ns = timings.generator_creation_ns;
  sample.prefill_ns = timings.prefill_ns;
  sample.first_token_ns = timings.first_token_ns - timings.prefill_ns;  // choosing the first token
  sample.decode_ns = timings.decode_step_ns;
  sample.stages.clear();
  for (const generate::StageTimings& stage : timings.stages) {
    GenaiStageTime time;
    time.name = stage.name;
    time.prompt_ns = Sum(stage.prompt_run_ns);
    time.token_ns = Sum(stage.token_run_ns);
    time.prompt_runs = static_cast<int64_t>(stage.prompt_run_ns.size());
    time.token_runs = static_cast<int64_t>(stage.token_run_ns.size());
    sample.stages.push_back(std::move(time));
  }
}

GenaiPerfResult RunGenaiBenchmark(session::GenaiSession& session, const GenaiPerfOptions& options,
                                  const std::function<void(int, int)>& progress) {
  GenaiPerfResult result;
  GenaiMemorySample memory;
  if (options.memory) memory.rss_baseline_mb = CurrentRssMb();
  const Clock::time_point load_start = Clock::now();
  session.Load();
  result.load = LoadSampleOf(session, NanosSince(load_start));
  if (options.memory) memory.rss_after_load_mb = CurrentRssMb();

  const generate::Model& model = session.model();
  if (model.tokenizer() == nullptr && options.prompt_ids.empty()) {
    throw UsageError("the bundle has no tokenizer; perf needs one to encode --prompt (or give --prompt-ids)");
  }
  const session::PromptTemplate chat(
      model, options.prompt_ids.empty() ? TemplateModeOf(options.apply_template) : session::TemplateMode::kNever);
  result.info = InfoOf(session, options, chat.applies());
  const int total = options.warmup + options.iterations;
  for (int i = 0; i < total; ++i) {
    std::optional<ScopedPhase> cold;
    if (i == 0) cold.emplace("first request (cold)");
    GenaiRequestSample sample = RunRequest(model, chat, options, i == 0 ? &result.first_response : nullptr);
    cold.reset();
    sample.warmup = i < options.warmup;
    sample.index = sample.warmup ? i : i - options.warmup;
    result.requests.push_back(std::move(sample));
    if (progress) progress(i + 1, total);
  }
  if (options.memory) {
    memory.rss_after_inference_mb = CurrentRssMb();
    memory.rss_peak_mb = PeakRssMb();
    result.memory = memory;
  }
  return result;
}

}  // namespace modelkit::perf
