// `modelkit perf`: benchmark an ONNX model, or a genai bundle (perf_genai.cpp).
#include "cmd_perf.h"

#include <algorithm>
#include <iostream>

#include "commands.h"
#include "ep_flags.h"
#include "flag_checks.h"
#include "interrupt.h"
#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"
#include "modelkit/ort/ort_log.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/onnx_benchmark.h"
#include "modelkit/report/onnx_report.h"
#include "modelkit/session/model_source.h"
#include "modelkit/version.h"
#include "perf_output.h"
#include "progress_bar.h"
#include "terminal_status.h"
#include "token_id_list.h"

namespace modelkit::app {
namespace {

namespace fs = std::filesystem;

// The flags that shape a genai run only, as typed; a single ONNX model has no prompt to feed or tokens to generate.
std::vector<std::string> GenaiOnlyFlags(const CLI::App& command) {
  std::vector<std::string> given;
  for (const char* flag : {"--prompt", "--prompt-file", "--prompt-ids", "--apply-template", "--no-apply-template",
                           "--max-new-tokens", "--ignore-eos", "--prompt-tokens", "--gen-tokens", "--compile",
                           "--compile-timeout", "--layout", "--precision", "--window", "--rebuild"}) {
    if (command.count(flag) > 0) given.push_back(flag);
  }
  return given;
}

}  // namespace

// "onnx" or "genai" from --runtime and -m (auto: genai iff -m is a bundle, a checkpoint directory or a hub model id).
std::string ResolveRuntime(const std::string& runtime, const fs::path& model) {
  const std::string value = ToLower(runtime);
  if (value == "onnx" || value == "winml" || value == "winml-ort") return "onnx";
  if (value == "genai" || value == "winml-genai" || value == "ort-genai") return "genai";
  return session::ClassifyModelInput(model.string()) == session::ModelInputKind::kOther ? "onnx" : "genai";
}

namespace {

int RunPerf(PerfCommandOptions& options, CLI::App& command) {
  options.onnx.model = options.model;
  options.onnx.ep_options = ParseEpOptions(options.ep_options);
  options.onnx.batch_size_given = command.count("--batch-size") > 0;
  const std::vector<int64_t> batch_sizes = ParseCountList(options.batch_sizes, "--batch-size", 1, kMaxBatchSize);
  options.onnx.batch_size = batch_sizes.front();
  if (command.count("--duration") > 0) options.onnx.duration_s = options.duration;
  if (ResolveRuntime(options.runtime, options.model) == "genai") return RunGenaiPerf(options, command);
  std::error_code ec;
  const bool model_is_a_file = fs::is_regular_file(options.model, ec);  // else its error comes first, and alone
  if (const std::vector<std::string> ignored = GenaiOnlyFlags(command);
      !ignored.empty() && model_is_a_file && options.quiet == 0) {
    std::cerr << "warning: the following options apply to genai bundles and are ignored for the ONNX model '"
              << options.model << "': " << Join(ignored, ", ") << "\n";
  }
  if (options.device) options.onnx.device = *options.device;
  if (options.iterations) options.onnx.iterations = *options.iterations;
  if (options.warmup) options.onnx.warmup = *options.warmup;
  const std::string timestamp = report::UtcTimestamp();
  const fs::path output = ReportOutputPath(options, options.model, timestamp);
  std::vector<std::string> host_warnings;
  const report::ReportContext context = StartReportContext(options, timestamp, host_warnings);

  if (options.verbose > 0) ort::SetOrtLogEcho(PrintOnStderr);
  const device::Machine machine = options.ep_flags.LoadRealMachine();
  std::vector<report::OnnxPerfResult> results;  // one per batch size
  PerfMonitor monitor(options.monitor);
  {
    const InterruptScope interrupt_scope;  // Ctrl-C stops after the current iteration: no report is written
    for (size_t i = 0; i < batch_sizes.size(); ++i) {
      report::OnnxPerfOptions run = options.onnx;
      run.batch_size = batch_sizes[i];
      ProgressBar bar(batch_sizes.size() == 1
                          ? std::string("benchmarking")
                          : "batch " + std::to_string(batch_sizes[i]) + " (" + std::to_string(i + 1) + "/" +
                                std::to_string(batch_sizes.size()) + ")");
      results.push_back(perf::RunOnnxBenchmark(run, machine, [&](int done, int total) {
        StopIfInterrupted();
        if (options.quiet == 0) bar.Update(done, total, monitor.LiveText());
      }));
      StopIfInterrupted();
    }
  }
  monitor.Stop();
  report::OnnxPerfResult& result = results.front();
  result.warnings.insert(result.warnings.begin(), host_warnings.begin(), host_warnings.end());
  if (options.quiet == 0) {
    for (const std::string& warning : result.warnings) std::cerr << "warning: " << warning << "\n";
  }
  if (options.verbose > 0) {
    std::cerr << "device " << options.onnx.device.Name() << " -> " << result.resolved_device << ", EP "
              << result.ep_name << "; session load " << result.load_ms << " ms\n";
  }
  if (batch_sizes.size() > 1) {
    for (size_t i = 1; i < results.size(); ++i) {  // warnings the first run did not give
      for (const std::string& warning : results[i].warnings) {
        if (std::find(result.warnings.begin(), result.warnings.end(), warning) != result.warnings.end()) continue;
        if (options.quiet == 0) std::cerr << "warning: " << warning << "\n";
        result.warnings.push_back(warning);
      }
    }
    nlohmann::ordered_json json = report::OnnxSweepJson(options.onnx, batch_sizes, results, context);
    monitor.AddTo(json);
    return EmitPerfReport(json, options, output, report::OnnxSweepText);
  }
  nlohmann::ordered_json json = report::OnnxReportJson(options.onnx, result, context);
  monitor.AddTo(json);
  return EmitPerfReport(json, options, output, report::OnnxReportText);
}

}  // namespace

void RegisterPerfCommand(CLI::App& app, CommandRunner& run) {
  auto options = std::make_shared<PerfCommandOptions>();
  CLI::App* command = app.add_subcommand("perf", "Benchmark an ONNX model on this machine's devices and EPs");
  report::OnnxPerfOptions& onnx = options->onnx;
  command
      ->add_option("-m,--model", options->model,
                   "ONNX model file (.onnx), genai bundle directory, Hugging Face checkpoint directory or hub model id")
      ->required();
  command->add_option("--runtime", options->runtime, "auto, onnx or genai (winml/winml-ort/winml-genai/ort-genai)")
      ->transform(
          CLI::IsMember({"auto", "onnx", "genai", "winml", "winml-ort", "winml-genai", "ort-genai"}, CLI::ignore_case))
      ->capture_default_str();
  AddDeviceOption(*command, options->device,
                  "auto, npu, gpu or cpu; genai bundles also take config (follow the bundle's own EP routing). "
                  "Default: " +
                      std::string(onnx.device.Name()) + " for a model, " +
                      std::string(session::GenaiSessionOptions{}.device.Name()) + " for a bundle");
  command->add_option("--ep", onnx.ep, "Execution provider (alias or full name); see 'modelkit sys --list-ep'")
      ->check(NonEmpty());
  command->add_option("--ep-options", options->ep_options, "KEY=VALUE forwarded to the EP (repeatable)");
  const report::GenaiPerfOptions genai_defaults;
  command
      ->add_option("--iterations", options->iterations,
                   "Timed iterations (requests for a bundle). Default: " + std::to_string(onnx.iterations) +
                       " for a model, " + std::to_string(genai_defaults.iterations) + " for a bundle")
      ->check(CLI::Range(1, kMaxIterations));
  command
      ->add_option("--warmup", options->warmup,
                   "Untimed warm-up iterations. Default: " + std::to_string(onnx.warmup) + " for a model, " +
                       std::to_string(genai_defaults.warmup) + " for a bundle")
      ->check(CLI::Range(0, kMaxWarmup));
  command->add_option("--duration", options->duration, "Run timed iterations for SECONDS instead of a count")
      ->check(FiniteNumber(0, kMaxDurationSeconds, /*min_exclusive=*/true));
  command
      ->add_option("--batch-size", options->batch_sizes,
                   "Batch size for dynamic leading dimensions; a comma-separated list (1,4,8) runs a sweep")
      ->check(NonEmpty())
      ->capture_default_str();
  command->add_option("--shape-config", onnx.shape_config, "JSON {input: [shape], dim_param: size}");
  command->add_option("--input-data", onnx.input_data, "Real inputs as .npz keyed by input name");
  command
      ->add_option("-o,--output", options->output, "Report path (default ~/.cache/modelkit/perf/<model>/<time>.json)")
      ->check(NonEmpty());
  command->add_flag("--overwrite", options->overwrite, "Replace an existing report");
  command
      ->add_option("-f,--format", options->format,
                   "Console output: text, json, html (a self-contained page), or a table (md, csv, jsonl: one row per "
                   "run, or per request of a bundle)")
      ->transform(CLI::IsMember({"text", "json", "md", "csv", "jsonl", "html"}, CLI::ignore_case))
      ->capture_default_str();
  command->add_flag("--memory,!--no-memory", onnx.memory, "Record RSS checkpoints (default on)");
  command->add_flag("--monitor", options->monitor,
                    "Sample CPU utilisation and RSS in the background (live on a terminal, hw_monitor in the report)");
  command->add_option("--intra-op-threads", onnx.intra_op_threads, "Intra-op threads (0: ORT default)")
      ->check(CLI::Range(0, kMaxIntraOpThreads));
  command->add_flag("--fail-on-fallback", onnx.fail_on_fallback,
                    "Exit 4 when ONNX Runtime places any node of a session (or pipeline stage) on an EP other than the "
                    "one asked for, instead of warning");
  command->add_flag("-q,--quiet", options->quiet, "No progress bar or warnings");
  command->add_flag("-v,--verbose", options->verbose, "Show resolution details and ONNX Runtime warnings");
  report::GenaiPerfOptions& genai = options->genai;
  GenaiPerfFlags& genai_flags = options->genai_flags;
  command->add_option("--prompt", genai.prompt, "Prompt text (genai)")->capture_default_str();
  command->add_option("--prompt-file", genai_flags.prompt_file, "File holding the prompt text (genai)");
  command->add_option("--prompt-ids", genai_flags.prompt_ids,
                      "Prompt as comma-separated token ids, fed as they are (genai; no template or tokenizer needed)");
  CLI::Option* apply =
      command->add_flag("--apply-template", genai_flags.apply_template,
                        "Wrap the prompt in the bundle's chat template (genai; default when it has one)");
  command->add_flag("--no-apply-template", genai_flags.no_apply_template, "Feed the prompt text as it is (genai)")
      ->excludes(apply);
  command->add_option("--max-new-tokens", genai.max_new_tokens, "Tokens to generate per request (genai)")
      ->check(CLI::Range(static_cast<int64_t>(1), static_cast<int64_t>(1) << 30))
      ->capture_default_str();
  command->add_flag("--ignore-eos", genai.ignore_eos, "Generate exactly --max-new-tokens per request (genai)");
  command->add_option("--prompt-tokens", genai_flags.prompt_tokens,
                      "Sweep: comma-separated prompt lengths in tokens, e.g. 128,512,2048 (genai; synthetic prompts)");
  command->add_option("--gen-tokens", genai_flags.gen_tokens,
                      "Sweep: comma-separated generation lengths, e.g. 32,128 (genai; each cell generates exactly that "
                      "many)");
  genai_flags.compile.Bind(*command);
  genai_flags.checkpoint.Bind(*command);
  options->ep_flags.Bind(*command);
  command->callback([options, command, &run] { run = [options, command] { return RunPerf(*options, *command); }; });
}

}  // namespace modelkit::app
