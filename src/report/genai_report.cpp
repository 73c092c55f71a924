#include "modelkit/report/genai_report.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "modelkit/base/text_table.h"
#include "modelkit/report/duration_text.h"
#include "modelkit/report/stats.h"

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// Tokens per second over `ns`; 0 when nothing was timed, as winml-cli reports it.
double TokensPerSecond(int64_t tokens, int64_t ns) {
  return ns > 0 ? static_cast<double>(tokens) / (static_cast<double>(ns) / 1e9) : 0.0;
}

// The derived numbers of one request, unrounded; sums are taken in nanoseconds so they are exact.
struct RequestMetrics {
  int64_t model_ttft_ns = 0;     // prefill + first token
  int64_t request_ttft_ns = 0;   // template + tokenization + generator create + model TTFT
  int64_t response_eval_ns = 0;  // first token + all decode steps
  int64_t model_compute_ns = 0;  // prefill + response eval
  int64_t request_ns = 0;        // everything from template to detokenized text
  double prefill_tokens_per_second = 0;
  double decode_tokens_per_second = 0;  // steady state: decode steps only
  double response_eval_tokens_per_second = 0;
  double tpot_ms = 0;  // mean decode step
};

RequestMetrics Derive(const GenaiRequestSample& request) {
  const int64_t decode_total = std::accumulate(request.decode_ns.begin(), request.decode_ns.end(), int64_t{0});
  const int64_t preparation = request.template_ns + request.tokenization_ns + request.generator_create_ns;
  RequestMetrics metrics;
  metrics.model_ttft_ns = request.prefill_ns + request.first_token_ns;
  metrics.request_ttft_ns = preparation + metrics.model_ttft_ns;
  metrics.response_eval_ns = request.first_token_ns + decode_total;
  metrics.model_compute_ns = request.prefill_ns + metrics.response_eval_ns;
  metrics.request_ns = preparation + metrics.model_compute_ns + request.sequence_fetch_ns + request.detokenization_ns;
  metrics.prefill_tokens_per_second = TokensPerSecond(request.prompt_tokens, request.prefill_ns);
  metrics.decode_tokens_per_second = TokensPerSecond(static_cast<int64_t>(request.decode_ns.size()), decode_total);
  metrics.response_eval_tokens_per_second = TokensPerSecond(request.generated_tokens, metrics.response_eval_ns);
  metrics.tpot_ms = request.decode_ns.empty() ? 0.0 : Ms(decode_total) / static_cast<double>(request.decode_ns.size());
  return metrics;
}

// {mean, std, min, max, p50, p90, p95, p99} with `decimals` decimals (3 suits ms); all null when there are no values.
ordered_json StatsJson(const std::vector<double>& values, int decimals = 3) {
  const std::optional<SampleStats> stats = ComputeStats(values);
  auto field = [&](double SampleStats::*member) {
    return RoundedOrNull(stats ? std::optional<double>((*stats).*member) : std::nullopt, decimals);
  };
  return {{"mean", field(&SampleStats::mean)}, {"std", field(&SampleStats::std)}, {"min", field(&SampleStats::min)},
          {"max", field(&SampleStats::max)},   {"p50", field(&SampleStats::p50)}, {"p90", field(&SampleStats::p90)},
          {"p95", field(&SampleStats::p95)},   {"p99", field(&SampleStats::p99)}};
}

ordered_json InfoJson(const GenaiBenchmarkInfo& info, const GenaiRequestSample* first_timed,
                      const ReportContext& context) {
  ordered_json block;
  block["runtime"] = "genai";
  block["model_id"] = context.model_id;
  block["running_model_path"] = info.running_model_path;
  block["bundle_dir"] = info.bundle_dir;
  block["ep"] = info.effective_ep.ReportName();
  block["device"] = info.device.Name();
  block["effective_device"] = info.effective_device ? ordered_json(*info.effective_device) : ordered_json(nullptr);
  block["compile"] = info.compile;
  block["compile_timeout"] = info.compile_timeout_s;
  block["compiled_stages"] = info.compiled_stages;
  block["last_position_logits_stages"] = info.last_position_logits_stages;
  block["int4_cpu_kernel_stages"] = info.int4_cpu_kernel_stages;
  block["fp32_cpu_kernel_stages"] = info.fp32_cpu_kernel_stages;
  block["attention_cpu_kernel_stages"] = info.attention_cpu_kernel_stages;
  block["monitor"] = info.monitor;
  block["iterations"] = info.options.iterations;
  block["warmup"] = info.options.warmup;
  block["max_new_tokens"] = info.options.max_new_tokens;
  block["apply_template"] = info.template_applied;
  block["prompt"] = info.options.prompt_ids.empty() ? ordered_json(info.options.prompt) : ordered_json(nullptr);
  block["prompt_ids"] = info.options.prompt_ids.empty() ? ordered_json(nullptr) : ordered_json(info.options.prompt_ids);
  block["prompt_tokens"] = first_timed ? ordered_json(first_timed->prompt_tokens) : ordered_json(nullptr);
  block["generated_tokens"] = first_timed ? ordered_json(first_timed->generated_tokens) : ordered_json(nullptr);
  block["context_length"] = info.context_length ? ordered_json(*info.context_length) : ordered_json(nullptr);
  block["window_size"] = info.window_size ? ordered_json(*info.window_size) : ordered_json(nullptr);
  // The windowed layout runs the prompt in ceil(prompt / window) runs of the prompt stages.
  block["prompt_windows"] = info.window_size && first_timed
                                ? ordered_json((first_timed->prompt_tokens + *info.window_size - 1) / *info.window_size)
                                : ordered_json(nullptr);
  block["timestamp"] = context.timestamp_utc;
  return block;
}

// Every setting that shaped the run, for `reproducibility`.
ordered_json SettingsJson(const GenaiBenchmarkInfo& info, const GenaiRequestSample* first_timed) {
  ordered_json threading = ordered_json::array();
  for (const StageThreading& stage : info.threading) {
    threading.push_back({{"stage", stage.stage},
                         {"intra_op_threads", stage.intra_op_threads == 0 ? ordered_json("ort_default")
                                                                          : ordered_json(stage.intra_op_threads)},
                         {"spinning", stage.spinning},
                         {"shared_pool", stage.shared_pool}});
  }
  return {{"iterations", info.options.iterations},
          {"warmup", info.options.warmup},
          {"max_new_tokens", info.options.max_new_tokens},
          {"ignore_eos", info.options.ignore_eos},
          {"sampling", "greedy"},
          {"prompt_source", info.options.prompt_source},
          {"prompt_tokens", first_timed ? ordered_json(first_timed->prompt_tokens) : ordered_json(nullptr)},
          {"apply_template", info.template_applied},
          {"ep", info.effective_ep.ReportName()},
          {"device", info.device.Name()},
          {"compile", info.compile},
          {"fail_on_fallback", info.fail_on_fallback},
          {"memory", info.options.memory},
          {"monitor", info.monitor},
          {"threading", std::move(threading)}};
}

ordered_json LoadJsonOf(const GenaiLoadSample& load) {
  ordered_json block;
  block["session_load_duration_ms"] = RoundTo(Ms(load.session_load_ns), 3);
  block["ep_registration_duration_ms"] = RoundTo(Ms(load.ep_registration_ns), 3);
  block["bundle_prepare_duration_ms"] = RoundTo(Ms(load.bundle_prepare_ns), 3);
  block["native_load_duration_ms"] = RoundTo(Ms(load.native_load_ns), 3);
  block["config_create_duration_ms"] = RoundTo(Ms(load.config_create_ns), 3);
  block["model_create_duration_ms"] = RoundTo(Ms(load.model_create_ns), 3);
  block["tokenizer_create_duration_ms"] = RoundTo(Ms(load.tokenizer_create_ns), 3);
  // onnxruntime-genai does not expose weight upload; model creation is the closest span that contains it.
  block["weight_upload_duration_ms"] = nullptr;
  const bool estimated = load.model_create_ns > 0;
  block["weight_upload_estimate_duration_ms"] =
      estimated ? ordered_json(RoundTo(Ms(load.model_create_ns), 3)) : ordered_json(nullptr);
  block["weight_upload_estimate_source"] = estimated ? "model_create_duration" : "unavailable";
  ordered_json stages = ordered_json::array();
  for (const auto& [name, ns] : load.stage_session_ns) {
    stages.push_back({{"name", name}, {"session_create_duration_ms", RoundTo(Ms(ns), 3)}});
  }
  block["stages"] = std::move(stages);
  return block;
}

ordered_json RequestJsonOf(const GenaiRequestSample& request) {
  const RequestMetrics metrics = Derive(request);
  ordered_json block;
  block["kind"] = request.warmup ? "warmup" : "timed";
  block["index"] = request.index;
  block["prompt_tokens"] = request.prompt_tokens;
  block["generated_tokens"] = request.generated_tokens;
  block["context_full"] = request.context_full;
  block["template_duration_ms"] = RoundTo(Ms(request.template_ns), 3);
  block["tokenization_duration_ms"] = RoundTo(Ms(request.tokenization_ns), 3);
  block["generator_create_duration_ms"] = RoundTo(Ms(request.generator_create_ns), 3);
  block["prefill_duration_ms"] = RoundTo(Ms(request.prefill_ns), 3);
  block["first_token_duration_ms"] = RoundTo(Ms(request.first_token_ns), 3);
  ordered_json decode = ordered_json::array();
  for (int64_t ns : request.decode_ns) decode.push_back(RoundTo(Ms(ns), 3));
  block["decode_token_durations_ms"] = std::move(decode);
  block["sequence_fetch_duration_ms"] = RoundTo(Ms(request.sequence_fetch_ns), 3);
  block["detokenization_duration_ms"] = RoundTo(Ms(request.detokenization_ns), 3);
  block["request_ttft_duration_ms"] = RoundTo(Ms(metrics.request_ttft_ns), 3);
  block["model_ttft_duration_ms"] = RoundTo(Ms(metrics.model_ttft_ns), 3);
  block["response_eval_duration_ms"] = RoundTo(Ms(metrics.response_eval_ns), 3);
  block["model_compute_duration_ms"] = RoundTo(Ms(metrics.model_compute_ns), 3);
  block["request_duration_ms"] = RoundTo(Ms(metrics.request_ns), 3);
  block["prefill_tokens_per_second"] = RoundTo(metrics.prefill_tokens_per_second, 2);
  block["steady_state_decode_tokens_per_second"] = RoundTo(metrics.decode_tokens_per_second, 2);
  block["response_eval_tokens_per_second"] = RoundTo(metrics.response_eval_tokens_per_second, 2);
  block["steady_state_tpot_ms"] = RoundTo(metrics.tpot_ms, 3);
  ordered_json stages = ordered_json::array();
  for (const GenaiStageTime& stage : request.stages) {
    stages.push_back({{"name", stage.name},
                      {"prompt_duration_ms", RoundTo(Ms(stage.prompt_ns), 3)},
                      {"token_duration_ms", RoundTo(Ms(stage.token_ns), 3)},
                      {"prompt_runs", stage.prompt_runs},
                      {"token_runs", stage.token_runs}});
  }
  block["stages"] = std::move(stages);
  // The raw measurements, unrounded: the ms fields above are derived from these.
  block["durations_ns"] = {{"template", request.template_ns},
                           {"tokenization", request.tokenization_ns},
                           {"generator_create", request.generator_create_ns},
                           {"prefill", request.prefill_ns},
                           {"first_token", request.first_token_ns},
                           {"decode_tokens", request.decode_ns},
                           {"sequence_fetch", request.sequence_fetch_ns},
                           {"detokenization", request.detokenization_ns}};
  return block;
}

// Per stage over the timed requests, stages in order of first appearance: prompt and token time stats, and
// the mean share of each request's model compute spent inside the stage.
ordered_json StageAggregateJson(const std::vector<const GenaiRequestSample*>& timed) {
  std::vector<std::string> names;
  for (const GenaiRequestSample* request : timed) {
    for (const GenaiStageTime& stage : request->stages) {
      if (std::find(names.begin(), names.end(), stage.name) == names.end()) names.push_back(stage.name);
    }
  }
  ordered_json stages = ordered_json::array();
  for (const std::string& name : names) {
    std::vector<double> prompt_ms;
    std::vector<double> token_ms;
    std::vector<double> shares;
    for (const GenaiRequestSample* request : timed) {
      int64_t prompt_ns = 0;
      int64_t token_ns = 0;
      for (const GenaiStageTime& stage : request->stages) {
        if (stage.name != name) continue;
        prompt_ns += stage.prompt_ns;
        token_ns += stage.token_ns;
      }
      prompt_ms.push_back(Ms(prompt_ns));
      token_ms.push_back(Ms(token_ns));
      const int64_t compute_ns = Derive(*request).model_compute_ns;
      shares.push_back(compute_ns > 0 ? static_cast<double>(prompt_ns + token_ns) / static_cast<double>(compute_ns)
                                      : 0.0);
    }
    stages.push_back({{"name", name},
                      {"prompt_duration_ms", StatsJson(prompt_ms)},
                      {"token_duration_ms", StatsJson(token_ms)},
                      {"share_of_model_compute", RoundedOrNull(Mean(shares), 3)}});
  }
  return stages;
}

ordered_json AggregateJson(const GenaiLoadSample& load, const std::vector<GenaiRequestSample>& requests,
                           const std::vector<const GenaiRequestSample*>& timed) {
  const auto first_warmup =
      std::find_if(requests.begin(), requests.end(), [](const GenaiRequestSample& r) { return r.warmup; });
  const GenaiRequestSample* cold = first_warmup != requests.end() ? &*first_warmup
                                   : timed.empty()                ? nullptr
                                                                  : timed.front();
  std::optional<double> cold_ttft;
  std::optional<double> cold_total;
  if (cold != nullptr) {
    const RequestMetrics metrics = Derive(*cold);
    cold_ttft = Ms(load.session_load_ns + metrics.request_ttft_ns);
    cold_total = Ms(load.session_load_ns + metrics.request_ns);
  }

  std::vector<RequestMetrics> metrics;
  for (const GenaiRequestSample* request : timed) metrics.push_back(Derive(*request));
  auto ms_stats = [&](int64_t RequestMetrics::*member) {
    std::vector<double> values;
    for (const RequestMetrics& m : metrics) values.push_back(Ms(m.*member));
    return StatsJson(values);
  };
  auto ns_stats = [&](int64_t RequestMetrics::*member) {
    std::vector<double> values;
    for (const RequestMetrics& m : metrics) values.push_back(static_cast<double>(m.*member));
    return StatsJson(values, 1);
  };
  auto stats = [&](double RequestMetrics::*member) {
    std::vector<double> values;
    for (const RequestMetrics& m : metrics) values.push_back(m.*member);
    return StatsJson(values);
  };
  std::vector<double> prefill_ms;
  std::vector<double> prefill_ns;
  std::vector<double> tpot_ns;
  for (const GenaiRequestSample* request : timed) {
    prefill_ms.push_back(Ms(request->prefill_ns));
    prefill_ns.push_back(static_cast<double>(request->prefill_ns));
  }
  for (const RequestMetrics& m : metrics) tpot_ns.push_back(m.tpot_ms * 1e6);

  ordered_json block;
  block["warmup_excluded"] = true;
  block["warmup_request_count"] = requests.size() - timed.size();
  block["timed_request_count"] = timed.size();
  block["cold_start_ttft_duration_ms"] = RoundedOrNull(cold_ttft, 3);
  block["cold_start_total_duration_ms"] = RoundedOrNull(cold_total, 3);
  block["request_duration_ms"] = ms_stats(&RequestMetrics::request_ns);
  block["model_compute_duration_ms"] = ms_stats(&RequestMetrics::model_compute_ns);
  block["model_ttft_duration_ms"] = ms_stats(&RequestMetrics::model_ttft_ns);
  block["request_ttft_duration_ms"] = ms_stats(&RequestMetrics::request_ttft_ns);
  block["prefill_duration_ms"] = StatsJson(prefill_ms);
  block["response_eval_duration_ms"] = ms_stats(&RequestMetrics::response_eval_ns);
  block["steady_state_tpot_ms"] = stats(&RequestMetrics::tpot_ms);
  block["prefill_tokens_per_second"] = stats(&RequestMetrics::prefill_tokens_per_second);
  block["steady_state_decode_tokens_per_second"] = stats(&RequestMetrics::decode_tokens_per_second);
  block["response_eval_tokens_per_second"] = stats(&RequestMetrics::response_eval_tokens_per_second);
  block["stages"] = StageAggregateJson(timed);
  // The duration statistics above in ns with one decimal, for runs whose steps take microseconds.
  block["durations_ns"] = {{"request", ns_stats(&RequestMetrics::request_ns)},
                           {"model_compute", ns_stats(&RequestMetrics::model_compute_ns)},
                           {"model_ttft", ns_stats(&RequestMetrics::model_ttft_ns)},
                           {"request_ttft", ns_stats(&RequestMetrics::request_ttft_ns)},
                           {"prefill", StatsJson(prefill_ns, 1)},
                           {"response_eval", ns_stats(&RequestMetrics::response_eval_ns)},
                           {"steady_state_tpot", StatsJson(tpot_ns, 1)}};
  return block;
}

// "config -> npu (SimNpu)": the device asked for, the device the run's config ended up on, and the EPs its stages
// asked for (CPU only when no stage asked for another). Without placement: "config (simnpu)" from the EP label.
std::string DeviceText(const ordered_json& info, const ordered_json& placement) {
  const auto device = info.at("device").get<std::string>();
  std::vector<std::string> eps;
  for (const ordered_json& stage : placement) {
    const std::string ep = stage.at("requested_ep").get<std::string>();
    if (ep != kCpuEpName && std::find(eps.begin(), eps.end(), ShortEpName(ep)) == eps.end()) {
      eps.push_back(ShortEpName(ep));
    }
  }
  if (eps.empty() && !placement.empty()) eps.push_back(ShortEpName(kCpuEpName));
  if (eps.empty()) {
    const auto label = info.at("ep").get<std::string>();
    return device == label ? device : device + " (" + label + ")";
  }
  const ordered_json& effective = info.at("effective_device");
  std::string text = device;
  if (effective.is_string() && effective.get<std::string>() != device) text += " -> " + effective.get<std::string>();
  std::string joined;
  for (const std::string& ep : eps) joined += (joined.empty() ? "" : ", ") + ep;
  return text + " (" + joined + ")";
}

// The Stages table's EP cell: the EP the stage asked for, with its share of nodes when ORT placed some elsewhere
// ("SimNpu 412/415"); "-" when ORT could not say.
std::string StageEpText(const ordered_json& placement, const std::string& stage_name) {
  for (const ordered_json& stage : placement) {
    if (stage.at("session") != stage_name) continue;
    const std::string requested = stage.at("requested_ep").get<std::string>();
    int64_t got = 0;
    for (const ordered_json& share : stage.at("eps")) {
      if (share.at("ep") == requested) got = share.at("nodes").get<int64_t>();
    }
    const int64_t total = stage.at("nodes").get<int64_t>();
    std::string text = ShortEpName(requested);
    if (got < total) text += " " + std::to_string(got) + "/" + std::to_string(total);
    return text;
  }
  return "-";
}

// "Device:", "Bundle:" and the "Placement:" block: what a single run's and a sweep's text share after "Runtime:".
std::string BundleHeaderText(const ordered_json& report) {
  const ordered_json& info = report.at("benchmark_info");
  std::ostringstream out;
  out << "Device: " << DeviceText(info, report.value("placement", ordered_json::array())) << "\n";
  out << "Bundle: " << info.at("bundle_dir").get<std::string>() << "\n";
  if (report.contains("placement") && !report.at("placement").empty()) {
    out << "Placement:\n";
    for (const ordered_json& stage : report.at("placement")) out << "  " << PlacementLine(stage) << "\n";
  }
  return out.str();
}

std::string CountText(const ordered_json& value) { return value.is_null() ? "-" : value.dump(); }

std::string MeanText(const ordered_json& stats_block) { return FixedOrDash(stats_block.at("mean"), 2); }

// A JSON number of ms as ns; null stays null.
ordered_json NsOfMs(const ordered_json& ms) { return ms.is_null() ? ms : ordered_json(ms.get<double>() * 1e6); }

// One statistic of an aggregate duration in ns: from `durations_ns` when the report has it (older reports: from the
// ms block), null when not measured.
ordered_json DurationNs(const ordered_json& aggregate, const char* ns_name, const char* ms_name, const char* field) {
  if (aggregate.contains("durations_ns")) return aggregate.at("durations_ns").at(ns_name).at(field);
  return NsOfMs(aggregate.at(ms_name).at(field));
}

// "245 ms": a duration in the unit that suits it, three significant digits; "-" when not measured.
std::string DurationText(const ordered_json& ns) {
  if (ns.is_null()) return "-";
  const DurationUnit unit = UnitFor(ns.get<double>());
  return DurationCell(ns, unit) + " " + std::string(unit.symbol);
}

}  // namespace

ordered_json GenaiRequestJson(const GenaiRequestSample& request) { return RequestJsonOf(request); }

ordered_json GenaiLoadJson(const GenaiLoadSample& load) { return LoadJsonOf(load); }

ordered_json GenaiReportJson(const GenaiBenchmarkInfo& info, const GenaiLoadSample& load,
                             const std::vector<GenaiRequestSample>& requests,
                             const std::optional<GenaiMemorySample>& memory, const ReportContext& context) {
  std::vector<const GenaiRequestSample*> timed;
  for (const GenaiRequestSample& request : requests) {
    if (!request.warmup) timed.push_back(&request);
  }
  ordered_json report;
  report["schema_version"] = kPerfReportSchemaVersion;
  report["tool"] = ToolJson(context);
  report["host"] = HostJson(context);
  report["benchmark_info"] = InfoJson(info, timed.empty() ? nullptr : timed.front(), context);
  report["load"] = GenaiLoadJson(load);
  ordered_json request_blocks = ordered_json::array();
  for (const GenaiRequestSample& request : requests) request_blocks.push_back(GenaiRequestJson(request));
  report["requests"] = std::move(request_blocks);
  report["aggregate"] = AggregateJson(load, requests, timed);
  if (memory) {
    ordered_json block =
        RssMemoryJson(memory->rss_baseline_mb, memory->rss_after_load_mb, memory->rss_after_inference_mb);
    block["rss_peak_mb"] = RoundedOrNull(memory->rss_peak_mb, 2);
    report["memory"] = std::move(block);
  }
  ordered_json placement = ordered_json::array();
  for (const SessionPlacement& stage : info.placement) placement.push_back(PlacementJson(stage));
  report["placement"] = std::move(placement);
  report["reproducibility"] = ReproducibilityJson(context, SettingsJson(info, timed.empty() ? nullptr : timed.front()));
  report["warnings"] = info.warnings;
  return report;
}

std::string GenaiReportText(const ordered_json& report) {
  const ordered_json& info = report.at("benchmark_info");
  const ordered_json& load = report.at("load");
  const ordered_json& aggregate = report.at("aggregate");
  std::ostringstream out;
  out << "Runtime: " << info.at("runtime").get<std::string>() << "\n";
  out << BundleHeaderText(report);
  out << "Prompt: " << CountText(info.at("prompt_tokens"))
      << " tokens   Generated: " << CountText(info.at("generated_tokens"))
      << " tokens (max_new_tokens=" << info.at("max_new_tokens").dump() << ")\n";
  if (!info.at("window_size").is_null()) {
    out << "Windows: " << CountText(info.at("prompt_windows")) << " prompt window(s) of "
        << info.at("window_size").dump() << " tokens (sliding_window)\n";
  }
  int64_t context_full = 0, timed_requests = 0;
  for (const ordered_json& request : report.at("requests")) {
    if (request.at("kind") != "timed") continue;
    ++timed_requests;
    if (request.at("context_full").get<bool>()) ++context_full;
  }
  if (context_full > 0) {
    out << "Stopped at the end of the context (context_length " << info.at("context_length").dump() << ") in "
        << context_full << " of " << timed_requests << " timed generation(s)\n";
  }

  out << "\nStartup\n";
  out << "  Session load: " << DurationText(NsOfMs(load.at("session_load_duration_ms"))) << "\n";
  out << "  Native load: " << DurationText(NsOfMs(load.at("native_load_duration_ms"))) << "\n";
  out << "  Cold TTFT: " << DurationText(NsOfMs(aggregate.at("cold_start_ttft_duration_ms"))) << "\n";
  out << "  Cold total: " << DurationText(NsOfMs(aggregate.at("cold_start_total_duration_ms"))) << "\n";
  if (!load.at("weight_upload_estimate_duration_ms").is_null()) {
    out << "  Weight upload estimate: " << DurationText(NsOfMs(load.at("weight_upload_estimate_duration_ms"))) << " ("
        << load.at("weight_upload_estimate_source").get<std::string>() << ")\n";
  }

  auto ttft = [&](const char* field) { return DurationNs(aggregate, "model_ttft", "model_ttft_duration_ms", field); };
  const std::vector<double> typical_ttft = {ttft("p50").is_null() ? 0.0 : ttft("p50").get<double>()};
  const DurationUnit ttft_unit = UnitForTable(typical_ttft);
  out << "\nTime to first token (" << ttft_unit.symbol << ")\n";
  TextTable table({"Avg", "P50", "P90", "P95", "P99", "Min", "Max"});
  table.AddRow({DurationCell(ttft("mean"), ttft_unit), DurationCell(ttft("p50"), ttft_unit),
                DurationCell(ttft("p90"), ttft_unit), DurationCell(ttft("p95"), ttft_unit),
                DurationCell(ttft("p99"), ttft_unit), DurationCell(ttft("min"), ttft_unit),
                DurationCell(ttft("max"), ttft_unit)});
  out << table.Render();

  out << "\nPrefill: " << DurationText(DurationNs(aggregate, "prefill", "prefill_duration_ms", "mean")) << " avg | "
      << MeanText(aggregate.at("prefill_tokens_per_second")) << " tokens/sec\n";
  const ordered_json& decode = aggregate.at("steady_state_decode_tokens_per_second");
  out << "Decode: " << MeanText(decode) << " tokens/sec avg (p50 " << FixedOrDash(decode.at("p50"), 2) << ", p90 "
      << FixedOrDash(decode.at("p90"), 2) << " over requests) | "
      << DurationText(DurationNs(aggregate, "steady_state_tpot", "steady_state_tpot_ms", "mean")) << "/token (TPOT)\n";
  out << "Latency: " << DurationText(DurationNs(aggregate, "request", "request_duration_ms", "mean"))
      << " avg per generation\n";

  const ordered_json& stages = aggregate.at("stages");
  if (!stages.empty()) {
    auto mean_ns = [](const ordered_json& stats_block) { return NsOfMs(stats_block.at("mean")); };
    std::vector<double> cells_ns;
    for (const ordered_json& stage : stages) {
      for (const char* column : {"prompt_duration_ms", "token_duration_ms"}) {
        const ordered_json ns = mean_ns(stage.at(column));
        if (!ns.is_null()) cells_ns.push_back(ns.get<double>());
      }
    }
    const DurationUnit unit = UnitForTable(cells_ns);
    out << "\nStages (" << unit.symbol << " avg per generation)\n";
    TextTable stage_table({"Stage", "EP", "Prompt", "Token", "Share of compute"});
    for (const ordered_json& stage : stages) {
      const ordered_json& share = stage.at("share_of_model_compute");
      const std::string name = stage.at("name").get<std::string>();
      stage_table.AddRow({name, StageEpText(report.value("placement", ordered_json::array()), name),
                          DurationCell(mean_ns(stage.at("prompt_duration_ms")), unit),
                          DurationCell(mean_ns(stage.at("token_duration_ms")), unit),
                          share.is_null() ? "-" : FixedOrDash(share.get<double>() * 100.0, 1) + "%"});
    }
    out << stage_table.Render();
  }

  if (report.contains("memory")) {
    const ordered_json& memory = report.at("memory");
    out << "\nMemory (RSS): baseline " << FixedOrDash(memory.at("rss_baseline_mb"), 1) << " MB, after load "
        << FixedOrDash(memory.at("rss_after_compile_mb"), 1) << " MB, after inference "
        << FixedOrDash(memory.at("rss_after_inference_mb"), 1) << " MB, peak "
        << FixedOrDash(memory.at("rss_peak_mb"), 1) << " MB\n";
  }
  const auto warmup = aggregate.at("warmup_request_count").get<int64_t>();
  if (warmup > 0) out << "Excluded first " << warmup << " warmup generation(s) from statistics\n";
  out << HostAtStartText(report);
  return out.str();
}

ordered_json GenaiSweepJson(const GenaiBenchmarkInfo& info, const GenaiLoadSample& load,
                            const std::vector<GenaiSweepCell>& cells, const std::optional<GenaiMemorySample>& memory,
                            const ReportContext& context) {
  ordered_json report = GenaiReportJson(info, load, {}, memory, context);
  ordered_json prompt_lengths = ordered_json::array();
  ordered_json gen_lengths = ordered_json::array();
  ordered_json sweep = ordered_json::array();
  for (const GenaiSweepCell& cell : cells) {
    if (std::find(prompt_lengths.begin(), prompt_lengths.end(), cell.prompt_tokens) == prompt_lengths.end()) {
      prompt_lengths.push_back(cell.prompt_tokens);
    }
    if (std::find(gen_lengths.begin(), gen_lengths.end(), cell.gen_tokens) == gen_lengths.end()) {
      gen_lengths.push_back(cell.gen_tokens);
    }
    ordered_json one = GenaiReportJson(info, load, cell.requests, std::nullopt, context);
    const ordered_json& aggregate = one.at("aggregate");
    sweep.push_back({{"prompt_tokens", cell.prompt_tokens},
                     {"gen_tokens", cell.gen_tokens},
                     {"pp_tokens_per_second", aggregate.at("prefill_tokens_per_second").at("mean")},
                     {"tg_tokens_per_second", aggregate.at("steady_state_decode_tokens_per_second").at("mean")},
                     {"ttft_ms", aggregate.at("model_ttft_duration_ms").at("mean")},
                     {"requests", std::move(one.at("requests"))},
                     {"aggregate", aggregate}});
  }
  ordered_json& block = report.at("benchmark_info");
  block["prompt_tokens"] = nullptr;
  block["generated_tokens"] = nullptr;
  block["sweep"] = {{"prompt_tokens", prompt_lengths}, {"gen_tokens", gen_lengths}};
  report.erase("requests");
  report.erase("aggregate");
  // After the run's blocks, before placement: where requests and aggregate stand in a single run's report.
  ordered_json ordered;
  for (auto& [key, value] : report.items()) {
    if (key == "placement") ordered["sweep"] = sweep;
    ordered[key] = value;
  }
  return ordered;
}

bool IsSweepReport(const ordered_json& report) { return report.contains("sweep") && report.at("sweep").is_array(); }

std::string GenaiSweepText(const ordered_json& report) {
  const ordered_json& info = report.at("benchmark_info");
  std::ostringstream out;
  out << "Runtime: " << info.at("runtime").get<std::string>() << " (sweep)\n";
  out << BundleHeaderText(report);
  std::vector<double> ttft_ns;
  for (const ordered_json& cell : report.at("sweep")) {
    if (cell.at("ttft_ms").is_number()) ttft_ns.push_back(cell.at("ttft_ms").get<double>() * 1e6);
  }
  const DurationUnit unit = UnitForTable(ttft_ns);
  out << "\nSweep (means over each cell's timed requests; synthetic prompts, --ignore-eos)\n";
  TextTable table({"Prompt", "Gen", "pp tokens/s", "tg tokens/s", "TTFT (" + std::string(unit.symbol) + ")"});
  auto rate = [](const ordered_json& value) { return value.is_null() ? "-" : SignificantText(value.get<double>()); };
  for (const ordered_json& cell : report.at("sweep")) {
    table.AddRow({cell.at("prompt_tokens").dump(), cell.at("gen_tokens").dump(), rate(cell.at("pp_tokens_per_second")),
                  rate(cell.at("tg_tokens_per_second")), DurationCell(NsOfMs(cell.at("ttft_ms")), unit)});
  }
  out << table.Render();
  out << HostAtStartText(report);
  return out.str();
}

}  // namespace modelkit::report
