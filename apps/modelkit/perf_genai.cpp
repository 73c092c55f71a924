// `modelkit perf` on a genai bundle (U§3.3–3.5 with product.md's differences): EP precedence --ep > concrete
// --device > the bundle's config (an omitted --device means config), 10 timed and 2 warm-up requests unless
// typed, one warning listing typed flags that mean nothing here, and the schema-2 genai report.
#include <iostream>

#include "cmd_perf.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"
#include "modelkit/bundle/genai_config.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/genai_report.h"
#include "modelkit/perf/onnx_report.h"
#include "perf_output.h"
#include "progress_bar.h"
#include "version.h"

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

session::TemplateMode TemplateModeOf(const GenaiPerfFlags& flags) {
  if (flags.apply_template) return session::TemplateMode::kApply;
  if (flags.no_apply_template) return session::TemplateMode::kNever;
  return session::TemplateMode::kAuto;
}

}  // namespace

int RunGenaiPerf(PerfCommandOptions& options, const CLI::App& command) {
  if (command.count("--input-data") > 0) {
    throw UsageError("--input-data is not supported with --runtime genai: a bundle is benchmarked on --prompt text");
  }
  const fs::path bundle = options.model;
  CheckBundlePath(bundle);
  GenaiPerfFlags& genai = options.genai;
  if (command.count("--prompt") > 0 && !genai.prompt_file.empty()) {
    throw UsageError("give either --prompt or --prompt-file, not both");
  }
  if (!genai.prompt_file.empty()) genai.prompt = ReadTextFile(genai.prompt_file, "--prompt-file");
  const std::vector<std::string> ignored = IgnoredFlags(command);
  if (!ignored.empty() && options.quiet == 0) {
    std::cerr << "warning: the following options are ignored with --runtime genai: " << Join(ignored, ", ") << "\n";
  }
  perf::GenaiPerfOptions run;
  run.prompt = genai.prompt;
  run.template_mode = TemplateModeOf(genai);
  run.max_new_tokens = genai.max_new_tokens;
  run.iterations = command.count("--iterations") > 0 ? options.onnx.iterations : 10;
  run.warmup = command.count("--warmup") > 0 ? options.onnx.warmup : 2;
  run.memory = options.onnx.memory;
  run.ignore_eos = genai.ignore_eos;
  const std::string device = command.count("--device") > 0 ? ToLower(options.onnx.device) : "config";

  const std::string timestamp = perf::UtcTimestamp();
  // Reports of a bundle are filed under the bundle directory's name ("genai" when it has none, e.g. "/").
  std::string slug = fs::absolute(bundle).lexically_normal().filename().string();
  if (slug.empty()) slug = fs::absolute(bundle).lexically_normal().parent_path().filename().string();
  if (slug.empty()) slug = "genai";
  const fs::path output = ReportOutputPath(options, slug + ".bundle", timestamp);

  if (options.verbose > 0) ort::SharedEnv().UpdateEnvWithCustomLogLevel(ORT_LOGGING_LEVEL_WARNING);
  session::PluginMachineAccess machine(options.ep_flags.Plugins());
  session::GenaiSession session(
      MakeGenaiSessionOptions(options.model, options.onnx.ep, device, genai.compile, options.ep_flags), machine);
  PerfMonitor monitor(options.monitor);
  perf::GenaiPerfResult result;
  {
    ProgressBar bar("benchmarking");
    result = perf::RunGenaiBenchmark(session, run, [&](int done, int total) {
      if (options.quiet == 0) bar.Update(done, total, monitor.LiveText());
    });
  }
  monitor.Stop();
  if (options.quiet == 0) PrintSessionWarnings(session);
  if (options.verbose > 0) {
    for (const session::StageCompileReport& stage : session.compile_reports()) {
      std::cerr << "stage " << stage.stage << ": " << session::OutcomeName(stage.outcome) << " " << stage.artifact
                << (stage.detail.empty() ? "" : " (" + stage.detail + ")") << "\n";
    }
    std::cerr << "loaded from " << session.load_dir().string() << "\n";
  }

  perf::GenaiBenchmarkInfo info;
  info.bundle_dir = bundle.string();
  info.running_model_path = session.load_dir().string();
  info.ep_label = session.ep_label();
  info.device = device;
  if (!session.effective_device().empty()) info.effective_device = session.effective_device();
  info.compile = genai.compile.compile;
  info.compile_timeout_s = genai.compile.compile_timeout_s;
  info.monitor = options.monitor;
  info.iterations = run.iterations;
  info.warmup = run.warmup;
  info.max_new_tokens = run.max_new_tokens;
  info.apply_template = result.template_applied;
  info.prompt = run.prompt;
  info.context_length = session.model().config().context_length;
  for (const session::StageCompileReport& stage : session.compile_reports()) {
    if (stage.outcome != session::StageCompileOutcome::kFailed) info.compiled_stages.push_back(stage.stage);
  }
  const perf::ReportContext context{options.model, kVersion, kGitCommit, timestamp, ort::RuntimeVersion()};
  nlohmann::ordered_json report = perf::GenaiReportJson(info, result.load, result.requests, result.memory, context);
  monitor.AddTo(report);
  return EmitPerfReport(report, options, output, perf::GenaiReportText);
}

}  // namespace modelkit::app
