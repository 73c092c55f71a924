// `modelkit perf` on a genai bundle: EP precedence --ep > concrete --device > the bundle's config (an omitted
// --device means config), report::GenaiPerfOptions' request counts unless typed, one warning listing typed flags
// that mean nothing here, and the schema-2 genai report (docs/genai-session.md).
#include <iostream>

#include "cmd_perf.h"
#include "commands.h"
#include "flag_checks.h"
#include "interrupt.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"
#include "modelkit/bundle/genai_config.h"
#include "modelkit/ort/ort_log.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/genai_benchmark.h"
#include "modelkit/report/genai_report.h"
#include "modelkit/report/onnx_report.h"
#include "modelkit/version.h"
#include "perf_output.h"
#include "progress_bar.h"
#include "terminal_status.h"
#include "token_id_list.h"

namespace modelkit::app {
namespace {

namespace fs = std::filesystem;

// Typed flags that only the ONNX path uses, as the user spelled them.
std::vector<std::string> IgnoredFlags(const CLI::App& command) {
  std::vector<std::string> ignored;
  for (const char* flag : {"--batch-size", "--duration", "--ep-options", "--intra-op-threads", "--shape-config"}) {
    if (command.count(flag) > 0) ignored.push_back(flag);
  }
  return ignored;
}

void CheckBundlePath(const fs::path& model) {
  if (model.extension() == ".onnx") {
    throw UsageError("--runtime genai expects a bundle directory holding genai_config.json, not the .onnx file '" +
                     model.string() + "'; benchmark a single model with --runtime onnx");
  }
  bundle::RequireBundleDirectory(model, "--runtime genai");
}

// A sweep without --prompt-tokens runs this prompt length, as llama-bench's default pp test.
constexpr int64_t kDefaultSweepPromptTokens = 512;
// Timed requests per sweep cell unless --iterations is typed: a matrix of cells multiplies every request.
constexpr int kDefaultSweepIterations = 3;

struct SweepPlan {
  std::vector<int64_t> prompt_lengths;
  std::vector<int64_t> gen_lengths;
};

// The sweep --prompt-tokens/--gen-tokens ask for; nullopt for a plain run.
std::optional<SweepPlan> SweepPlanOf(const GenaiPerfFlags& flags, const CLI::App& command,
                                     const report::GenaiPerfOptions& run) {
  if (flags.prompt_tokens.empty() && flags.gen_tokens.empty()) return std::nullopt;
  for (const char* flag : {"--prompt", "--prompt-file", "--prompt-ids", "--apply-template"}) {
    if (command.count(flag) > 0) {
      throw UsageError(std::string(flag) +
                       " cannot be combined with --prompt-tokens/--gen-tokens: a sweep feeds "
                       "synthetic prompts of exactly those lengths");
    }
  }
  SweepPlan plan;
  plan.prompt_lengths = flags.prompt_tokens.empty()
                            ? std::vector<int64_t>{kDefaultSweepPromptTokens}
                            : ParseCountList(flags.prompt_tokens, "--prompt-tokens", 1, kMaxContextLength);
  plan.gen_lengths = flags.gen_tokens.empty() ? std::vector<int64_t>{run.max_new_tokens}
                                              : ParseCountList(flags.gen_tokens, "--gen-tokens", 1, kMaxContextLength);
  return plan;
}

// Runs every cell of `plan` on the loaded session, one warm-up request each (unless --warmup says otherwise).
perf::GenaiPerfResult RunSweep(session::GenaiSession& session, const SweepPlan& plan, report::GenaiPerfOptions run,
                               const PerfCommandOptions& options, PerfMonitor& monitor,
                               std::vector<report::GenaiSweepCell>& cells) {
  session.Load();
  const int64_t context = session.model().config().context_length;
  for (int64_t prompt : plan.prompt_lengths) {
    for (int64_t gen : plan.gen_lengths) {
      if (context > 0 && prompt + gen > context) {
        throw UsageError("the sweep cell of " + std::to_string(prompt) + " prompt and " + std::to_string(gen) +
                         " generated tokens needs " + std::to_string(prompt + gen) +
                         " positions; the bundle's context has " + std::to_string(context) +
                         ": shorten --prompt-tokens or --gen-tokens");
      }
    }
  }
  if (!options.iterations) run.iterations = kDefaultSweepIterations;
  if (!options.warmup) run.warmup = 1;
  run.ignore_eos = true;
  run.apply_template = false;
  run.prompt_source = "synthetic";
  perf::GenaiPerfResult first;
  perf::GenaiPerfResult result;
  const size_t total = plan.prompt_lengths.size() * plan.gen_lengths.size();
  for (int64_t prompt : plan.prompt_lengths) {
    for (int64_t gen : plan.gen_lengths) {
      run.prompt_ids = perf::SyntheticPromptIds(session.model(), prompt);
      run.max_new_tokens = gen;
      ProgressBar bar("cell " + std::to_string(cells.size() + 1) + "/" + std::to_string(total) + " (prompt " +
                      std::to_string(prompt) + ", gen " + std::to_string(gen) + ")");
      result = perf::RunGenaiBenchmark(session, run, [&](int done, int requests) {
        StopIfInterrupted();
        if (options.quiet == 0) bar.Update(done, requests, monitor.LiveText());
      });
      StopIfInterrupted();
      if (cells.empty()) first = result;
      cells.push_back({prompt, gen, result.requests});
    }
  }
  // The first cell's load; the memory checkpoints from the load to after the last cell (the peak is the process's).
  result.load = first.load;
  if (result.memory && first.memory) result.memory->rss_after_load_mb = first.memory->rss_after_load_mb;
  if (result.memory && first.memory) result.memory->rss_baseline_mb = first.memory->rss_baseline_mb;
  return result;
}

std::optional<bool> ApplyTemplateOf(const GenaiPerfFlags& flags) {
  if (flags.apply_template) return true;
  if (flags.no_apply_template) return false;
  return std::nullopt;
}

}  // namespace

int RunGenaiPerf(PerfCommandOptions& options, const CLI::App& command) {
  if (command.count("--input-data") > 0) {
    throw UsageError("--input-data is not supported with --runtime genai: a bundle is benchmarked on --prompt text");
  }
  const GenaiPerfFlags& flags = options.genai_flags;
  const fs::path bundle =
      ResolveGenaiModel(options.model, flags.checkpoint, command, options.onnx.ep, options.quiet > 0);
  CheckBundlePath(bundle);
  report::GenaiPerfOptions run = options.genai;
  if (command.count("--prompt") + !flags.prompt_file.empty() + !flags.prompt_ids.empty() > 1) {
    throw UsageError("give one of --prompt, --prompt-file or --prompt-ids, not several");
  }
  if (command.count("--prompt") > 0) run.prompt_source = "text";
  if (!flags.prompt_file.empty()) {
    run.prompt = ReadTextFile(flags.prompt_file, "--prompt-file", kMaxPromptFileBytes);
    run.prompt_source = "file";
  }
  if (!flags.prompt_ids.empty()) {
    if (flags.apply_template) throw UsageError("--apply-template needs prompt text; --prompt-ids are fed as they are");
    run.prompt_ids = ParseTokenIdList(flags.prompt_ids, "--prompt-ids");
    run.prompt_source = "ids";
  }
  const std::optional<SweepPlan> sweep = SweepPlanOf(flags, command, run);
  const std::vector<std::string> ignored = IgnoredFlags(command);
  if (!ignored.empty() && options.quiet == 0) {
    std::cerr << "warning: the following options are ignored with --runtime genai: " << Join(ignored, ", ") << "\n";
  }
  run.apply_template = ApplyTemplateOf(flags);
  if (options.iterations) run.iterations = *options.iterations;
  if (options.warmup) run.warmup = *options.warmup;
  run.memory = options.onnx.memory;
  const device::DeviceRequest device = options.device.value_or(session::GenaiSessionOptions{}.device);

  const std::string timestamp = report::UtcTimestamp();
  // Reports of a bundle are filed under the bundle directory's name ("genai" when it has none, e.g. "/").
  std::string slug = fs::absolute(bundle).lexically_normal().filename().string();
  if (slug.empty()) slug = fs::absolute(bundle).lexically_normal().parent_path().filename().string();
  if (slug.empty()) slug = "genai";
  const fs::path output = ReportOutputPath(options, slug + ".bundle", timestamp);
  std::vector<std::string> host_warnings;
  const report::ReportContext context = StartReportContext(options, timestamp, host_warnings);

  if (options.verbose > 0) ort::SetOrtLogEcho(PrintOnStderr);
  session::PluginMachineAccess machine(options.ep_flags.Plugins());
  session::GenaiSessionOptions session_options =
      MakeGenaiSessionOptions(bundle.string(), options.onnx.ep, device, flags.compile, options.ep_flags);
  if (options.quiet > 0) session_options.on_warning = nullptr;
  session_options.tokenizer_optional = !run.prompt_ids.empty() || sweep.has_value();
  session_options.fail_on_fallback = options.onnx.fail_on_fallback;
  session::GenaiSession session(std::move(session_options), machine);
  PerfMonitor monitor(options.monitor);
  perf::GenaiPerfResult result;
  std::vector<report::GenaiSweepCell> cells;
  {
    const InterruptScope interrupt_scope;  // Ctrl-C stops after the current request: no report is written
    if (sweep) {
      result = RunSweep(session, *sweep, run, options, monitor, cells);
    } else {
      ProgressBar bar("benchmarking");
      result = perf::RunGenaiBenchmark(session, run, [&](int done, int total) {
        StopIfInterrupted();
        if (options.quiet == 0) bar.Update(done, total, monitor.LiveText());
      });
    }
    StopIfInterrupted();
  }
  monitor.Stop();
  if (options.verbose > 0) {
    for (const compile::StageCompileReport& stage : session.compile_reports()) {
      std::cerr << "stage " << stage.stage << ": " << compile::OutcomeName(stage.outcome) << " " << stage.artifact
                << (stage.detail.empty() ? "" : " (" + stage.detail + ")") << "\n";
    }
    std::cerr << "loaded from " << session.load_dir().string() << "\n";
  }

  result.info.monitor = options.monitor;
  if (options.quiet == 0) {  // the session's own warnings were printed as they arose
    for (const std::string& warning : host_warnings) std::cerr << "warning: " << warning << "\n";
  }
  result.info.warnings.insert(result.info.warnings.begin(), host_warnings.begin(), host_warnings.end());
  if (sweep) {
    nlohmann::ordered_json json = report::GenaiSweepJson(result.info, result.load, cells, result.memory, context);
    monitor.AddTo(json);
    return EmitPerfReport(json, options, output, report::GenaiSweepText);
  }
  nlohmann::ordered_json json =
      report::GenaiReportJson(result.info, result.load, result.requests, result.memory, context);
  monitor.AddTo(json);
  return EmitPerfReport(json, options, output, report::GenaiReportText);
}

}  // namespace modelkit::app
