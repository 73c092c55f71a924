// `modelkit generate`: run a genai bundle on a prompt, streaming the text to stdout (or one JSON document with
// --format json: prompt ids, generated ids, text and timings).

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "build_flags.h"
#include "commands.h"
#include "ep_flags.h"
#include "flag_checks.h"
#include "genai_flags.h"
#include "interrupt.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"
#include "modelkit/generate/generator.h"
#include "modelkit/generate/model.h"
#include "modelkit/perf/genai_benchmark.h"
#include "modelkit/report/duration_text.h"
#include "modelkit/report/genai_report.h"
#include "modelkit/report/stats.h"
#include "modelkit/session/genai_session.h"
#include "modelkit/session/prompt_template.h"
#include "token_id_list.h"

namespace modelkit::app {
namespace {

struct GenerateFlags {
  std::string bundle;
  std::string prompt;
  std::string prompt_file;
  std::string prompt_ids;
  std::optional<int64_t> max_new_tokens = 256;
  bool apply_template = false;  // neither flag: apply when the bundle has a chat template
  bool no_apply_template = false;
  bool do_sample = false;
  bool greedy = false;
  std::optional<double> temperature;
  std::optional<int> top_k;
  std::optional<double> top_p;
  std::optional<double> repetition_penalty;
  std::optional<uint64_t> seed;
  bool ignore_eos = false;
  std::string format = "text";
  CheckpointFlags checkpoint;  // -m as a checkpoint or model id
  std::string ep;
  device::DeviceRequest device = session::GenaiSessionOptions{}.device;
  GenaiCompileFlags compile;
  EpLibraryFlags ep_flags;
};

// The generation as one request of `perf`'s report: the same names and rounding for the same quantities
// (report::GenaiRequestJson), plus the part of each decode step spent inside ONNX Runtime.
nlohmann::ordered_json TimingsJson(const report::GenaiRequestSample& sample, const generate::GenerationTimings& t) {
  nlohmann::ordered_json timings = report::GenaiRequestJson(sample);
  timings.erase("kind");
  timings.erase("index");
  nlohmann::ordered_json inside_ort = nlohmann::ordered_json::array();
  for (const int64_t ns : t.decode_ort_ns) inside_ort.push_back(report::RoundTo(static_cast<double>(ns) / 1e6, 3));
  timings["decode_token_ort_durations_ms"] = std::move(inside_ort);
  timings["durations_ns"]["decode_tokens_ort"] = t.decode_ort_ns;
  return timings;
}

// "19 prompt tokens in 20.8 ms (913 tokens/s), 64 generated at 1056 tokens/s (947 µs/token), TTFT 21.4 ms": the
// line `generate` prints on stderr after the text, from the same JSON fields.
std::string TimingSummary(const nlohmann::ordered_json& timings) {
  auto duration = [](const nlohmann::ordered_json& ms) {
    const double ns = ms.get<double>() * 1e6;
    const report::DurationUnit unit = report::UnitFor(ns);
    return report::SignificantText(ns / unit.ns) + " " + std::string(unit.symbol);
  };
  std::string line = std::to_string(timings.at("prompt_tokens").get<int64_t>()) + " prompt tokens in " +
                     duration(timings.at("prefill_duration_ms")) + " (" +
                     report::SignificantText(timings.at("prefill_tokens_per_second").get<double>()) + " tokens/s), " +
                     std::to_string(timings.at("generated_tokens").get<int64_t>()) + " generated";
  if (!timings.at("decode_token_durations_ms").empty()) {
    line += " at " + report::SignificantText(timings.at("steady_state_decode_tokens_per_second").get<double>()) +
            " tokens/s (" + duration(timings.at("steady_state_tpot_ms")) + "/token)";
  }
  return line + ", TTFT " + duration(timings.at("model_ttft_duration_ms"));
}

int RunGenerate(const GenerateFlags& flags, const CLI::App& command) {
  const int sources = !flags.prompt.empty() + !flags.prompt_file.empty() + !flags.prompt_ids.empty();
  if (sources != 1) throw UsageError("give exactly one of --prompt, --prompt-file or --prompt-ids");
  if (flags.max_new_tokens && *flags.max_new_tokens < 0) throw UsageError("--max-new-tokens must be >= 0");

  // Ctrl-C during the load stops after it; during generation, after the current step (the text so far is kept).
  const InterruptScope interrupt_scope;
  session::PluginMachineAccess machine(flags.ep_flags.Plugins());
  const std::string bundle = ResolveGenaiModel(flags.bundle, flags.checkpoint, command, flags.ep, /*quiet=*/false);
  session::GenaiSessionOptions session_options =
      MakeGenaiSessionOptions(bundle, flags.ep, flags.device, flags.compile, flags.ep_flags);
  // Token ids in need no tokenizer: a bundle built without one runs, its output given as ids.
  session_options.tokenizer_optional = !flags.prompt_ids.empty();
  session::GenaiSession genai(std::move(session_options), machine);
  const generate::Clock::time_point load_start = generate::Clock::now();
  genai.Load();
  const int64_t load_ns = generate::NanosSince(load_start);
  StopIfInterrupted();
  const generate::Model* model = &genai.model();

  std::vector<int32_t> prompt;
  report::GenaiRequestSample sample;  // the spans this command measures itself; the generation fills the rest
  if (!flags.prompt_ids.empty()) {
    prompt = ParseTokenIdList(flags.prompt_ids, "--prompt-ids");
  } else {
    const session::TemplateMode mode = flags.apply_template      ? session::TemplateMode::kApply
                                       : flags.no_apply_template ? session::TemplateMode::kNever
                                                                 : session::TemplateMode::kAuto;
    const std::string user_text = flags.prompt_file.empty()
                                      ? flags.prompt
                                      : ReadTextFile(flags.prompt_file, "--prompt-file", kMaxPromptFileBytes);
    generate::Clock::time_point start = generate::Clock::now();
    const std::string text = session::PromptTemplate(*model, mode).Render(user_text);
    sample.template_ns = generate::NanosSince(start);
    start = generate::Clock::now();
    prompt = model->tokenizer()->Encode(text);
    sample.tokenization_ns = generate::NanosSince(start);
  }

  generate::GenerateOptions options;
  options.max_new_tokens = flags.max_new_tokens;
  if (flags.do_sample) options.do_sample = true;
  if (flags.greedy) options.do_sample = false;  // neither flag: the bundle's search.do_sample
  options.temperature = flags.temperature;
  options.top_k = flags.top_k;
  options.top_p = flags.top_p;
  options.repetition_penalty = flags.repetition_penalty;
  options.seed = flags.seed;
  options.ignore_eos = flags.ignore_eos;

  const bool json = flags.format == "json";
  const auto on_text = [&](std::string_view piece) { std::cout << piece << std::flush; };
  StopIfInterrupted();
  generate::GenerationResult result = generate::Generate(
      *model, prompt, options, json ? std::function<void(std::string_view)>() : on_text, InterruptRequested);
  result.timings.tokenize_ns = sample.tokenization_ns;
  sample.detokenization_ns = result.timings.detokenize_ns;
  perf::FillFromGeneration(sample, result.timings, static_cast<int64_t>(result.prompt_ids.size()),
                           static_cast<int64_t>(result.generated_ids.size()), result.context_full);
  const nlohmann::ordered_json timings = TimingsJson(sample, result.timings);
  if (json) {
    const nlohmann::ordered_json report = {{"bundle", flags.bundle},
                                           {"ep", genai.effective_ep().ReportName()},
                                           {"device", flags.device.Name()},
                                           {"effective_device", genai.effective_device()},
                                           {"prompt_ids", result.prompt_ids},
                                           {"generated_ids", result.generated_ids},
                                           {"text", result.text},
                                           {"stop_reason", generate::StopReasonName(result.stop_reason)},
                                           {"context_full", result.context_full},
                                           {"kv_cache_bytes", result.kv_cache_bytes},
                                           {"load", report::GenaiLoadJson(perf::LoadSampleOf(genai, load_ns))},
                                           {"timings", timings}};
    std::cout << report.dump(2) << "\n";
  } else if (model->tokenizer() == nullptr) {
    std::vector<std::string> ids;
    for (const int32_t id : result.generated_ids) ids.push_back(std::to_string(id));
    std::cout << Join(ids, ",") << "\n" << std::flush;
    std::fprintf(stderr, "note: the bundle has no tokenizer; the generated tokens are shown as ids\n");
  } else {
    std::cout << "\n" << std::flush;
  }
  if (!json && !result.generated_ids.empty()) std::fprintf(stderr, "%s\n", TimingSummary(timings).c_str());
  if (result.context_full) {
    std::fprintf(stderr, "note: generation stopped at the end of the model's context (%lld positions)\n",
                 static_cast<long long>(result.prompt_ids.size() + result.generated_ids.size()));
  }
  return InterruptRequested() ? static_cast<int>(ExitCode::kInterrupted) : 0;
}

}  // namespace

void RegisterGenerateCommand(CLI::App& app, CommandRunner& run) {
  auto flags = std::make_shared<GenerateFlags>();
  CLI::App* command = app.add_subcommand("generate", "Run a genai bundle on a prompt, streaming the text to stdout");
  command
      ->add_option("-m,--model", flags->bundle,
                   "Bundle directory (holding genai_config.json), Hugging Face checkpoint directory or hub model id")
      ->required();
  command->add_option("--prompt", flags->prompt, "Prompt text");
  command->add_option("--prompt-file", flags->prompt_file, "File holding the prompt text");
  command->add_option("--prompt-ids", flags->prompt_ids, "Prompt as comma-separated token ids (no template)");
  command->add_option("--max-new-tokens", flags->max_new_tokens, "Most tokens to generate")
      ->check(UnsignedInteger(kMaxNewTokens))
      ->capture_default_str();
  CLI::Option* apply = command->add_flag("--apply-template", flags->apply_template,
                                         "Wrap the prompt in the bundle's chat template (default: when it has one)");
  command->add_flag("--no-apply-template", flags->no_apply_template, "Feed the prompt text as it is")->excludes(apply);
  CLI::Option* sample = command->add_flag("--do-sample", flags->do_sample,
                                          "Sample (default: the bundle's search.do_sample, greedy for most bundles)");
  command->add_flag("--greedy", flags->greedy, "Greedy search even when the bundle's search samples")->excludes(sample);
  command->add_option("--temperature", flags->temperature, "Sampling temperature (default: the bundle's)")
      ->check(FiniteNumber(0, kMaxTemperature));
  command->add_option("--top-k", flags->top_k, "Sample among the k most likely tokens (default: the bundle's)")
      ->check(UnsignedInteger(INT32_MAX));
  command->add_option("--top-p", flags->top_p, "Nucleus sampling mass (default: the bundle's)")
      ->check(FiniteNumber(0, 1, /*min_exclusive=*/true));
  command->add_option("--repetition-penalty", flags->repetition_penalty, "Repetition penalty (default: the bundle's)")
      ->check(FiniteNumber(0, kMaxRepetitionPenalty, /*min_exclusive=*/true));
  command->add_option("--seed", flags->seed, "Sampling seed (default: search.random_seed, else random)")
      ->check(UnsignedInteger());
  command->add_flag("--ignore-eos", flags->ignore_eos, "Do not stop on end-of-sequence tokens (benchmarking)");
  command->add_option("-f,--format", flags->format, "Output: streamed text, or one JSON document")
      ->transform(CLI::IsMember({"text", "json"}, CLI::ignore_case))
      ->capture_default_str();
  command->add_option("--ep", flags->ep, "EP override for the bundle's hardware stages (alias or full name)")
      ->check(NonEmpty());
  AddDeviceOption(*command, flags->device,
                  "config (follow the bundle's own EP routing), auto, npu, gpu or cpu: the device whose EP "
                  "overrides the bundle's");
  flags->compile.Bind(*command);
  flags->ep_flags.Bind(*command);
  flags->checkpoint.Bind(*command);
  command->callback([flags, command, &run] { run = [flags, command] { return RunGenerate(*flags, *command); }; });
}

}  // namespace modelkit::app
