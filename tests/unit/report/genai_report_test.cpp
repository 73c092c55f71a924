#include "modelkit/report/genai_report.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kMs = 1'000'000;  // nanoseconds per millisecond

std::vector<std::string> Keys(const ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

double Num(const ordered_json& value) { return value.get<double>(); }

ReportContext Context() {
  ReportContext context{"org/tiny-llm", "0.3.0", "abc1234", "2026-12-03T08:15:00Z", "1.23.0", {}, {}};
  context.command_line = {"modelkit", "perf", "-m", "org/tiny-llm", "--ignore-eos"};
  context.host_at_start.load_average_1m = 1.5;
  return context;
}

GenaiBenchmarkInfo Info() {
  GenaiBenchmarkInfo info;
  info.bundle_dir = "/bundles/tiny";
  info.running_model_path = "/bundles/tiny/_compiled";
  info.effective_ep = device::EffectiveEp{"cpu"};
  info.device = device::DeviceRequest::Config();
  info.effective_device = "cpu";
  info.compile_timeout_s = 300;
  info.compiled_stages = {"ctx"};
  info.last_position_logits_stages = {"lm_head"};
  info.int4_cpu_kernel_stages = {"ctx", "iter"};
  info.fp32_cpu_kernel_stages = {"lm_head"};
  info.attention_cpu_kernel_stages = {"decoder"};
  info.options.prompt = "Explain the theory of relativity in simple terms.";
  info.options.iterations = 10;
  info.options.warmup = 2;
  info.options.max_new_tokens = 128;
  info.template_applied = true;
  info.context_length = 2048;
  return info;
}

GenaiLoadSample Load() {
  GenaiLoadSample load;
  load.session_load_ns = 1500 * kMs;
  load.ep_registration_ns = 2 * kMs;
  load.bundle_prepare_ns = 3 * kMs;
  load.native_load_ns = 1200 * kMs;
  load.config_create_ns = 4 * kMs;
  load.model_create_ns = 800 * kMs;
  load.tokenizer_create_ns = 5 * kMs;
  load.stage_session_ns = {{"ctx", 600 * kMs}, {"iter", 150'000'123}};
  return load;
}

// One request whose derived values are easy to work out by hand (ms):
// model TTFT 20 + 5 = 25; request TTFT 1 + 0.5 + 0.25 + 25 = 26.75; response eval 5 + 4 + 6 + 5 = 20;
// model compute 20 + 20 = 40; request 1.75 + 40 + 0.1 + 0.15 = 42.
GenaiRequestSample Simple() {
  GenaiRequestSample r;
  r.prompt_tokens = 10;
  r.generated_tokens = 4;
  r.template_ns = 1 * kMs;
  r.tokenization_ns = kMs / 2;
  r.generator_create_ns = kMs / 4;
  r.prefill_ns = 20 * kMs;
  r.first_token_ns = 5 * kMs;
  r.decode_ns = {4 * kMs, 6 * kMs, 5 * kMs};
  r.sequence_fetch_ns = kMs / 10;
  r.detokenization_ns = 150'000;
  return r;
}

GenaiRequestSample Warmup(int index, int64_t prefill_ms) {
  GenaiRequestSample r;
  r.warmup = true;
  r.index = index;
  r.prompt_tokens = 99;
  r.generated_tokens = 77;
  r.template_ns = 2 * kMs;
  r.tokenization_ns = 1 * kMs;
  r.generator_create_ns = 3 * kMs;
  r.prefill_ns = prefill_ms * kMs;
  r.first_token_ns = 500 * kMs;
  r.decode_ns = {100 * kMs};
  r.sequence_fetch_ns = 4 * kMs;
  r.detokenization_ns = 6 * kMs;
  r.stages = {{"decoder", 900 * kMs, 600 * kMs, 1, 2}};
  return r;
}

// Prefill ms of the ten timed requests, in run order; sorted they are 1..10.
constexpr int64_t kTimedPrefillMs[] = {5, 1, 9, 3, 7, 2, 10, 4, 8, 6};

// Two warm-ups (huge, so any leak into the stats shows) and ten timed requests. Timed request i: 10 prompt
// tokens, prefill p_i ms, first token 1 ms, decode 2 + 2 ms (3 generated tokens), nothing else; its "decoder"
// stage spends p_i / 2 ms on the prompt and 2.5 ms on tokens, half of the p_i + 5 ms model compute.
std::vector<GenaiRequestSample> Requests() {
  std::vector<GenaiRequestSample> requests = {Warmup(0, 1000), Warmup(1, 800)};
  int index = 0;
  for (int64_t prefill_ms : kTimedPrefillMs) {
    GenaiRequestSample r;
    r.index = index++;
    r.prompt_tokens = 10;
    r.generated_tokens = 3;
    r.prefill_ns = prefill_ms * kMs;
    r.first_token_ns = 1 * kMs;
    r.decode_ns = {2 * kMs, 2 * kMs};
    r.stages = {{"decoder", prefill_ms * kMs / 2, 2'500'000, 1, 3}};
    requests.push_back(r);
  }
  return requests;
}

GenaiMemorySample Memory() {
  GenaiMemorySample memory;
  memory.rss_baseline_mb = 100.126;
  memory.rss_after_load_mb = 250.5;
  memory.rss_after_inference_mb = 260.04;
  memory.rss_peak_mb = 300.4567;
  return memory;
}

ordered_json Report() { return GenaiReportJson(Info(), Load(), Requests(), Memory(), Context()); }

TEST(GenaiReportJson, TopLevelKeysToolAndHost) {
  const ordered_json report = Report();
  EXPECT_EQ(Keys(report),
            (std::vector<std::string>{"schema_version", "tool", "host", "benchmark_info", "load", "requests",
                                      "aggregate", "memory", "placement", "reproducibility", "warnings"}));
  EXPECT_EQ(report["schema_version"], 2);
  EXPECT_EQ(report["tool"], (ordered_json{{"name", "modelkit"}, {"version", "0.3.0"}, {"git_commit", "abc1234"}}));
  EXPECT_EQ(Keys(report["host"]), (std::vector<std::string>{"cpu_model", "logical_cores", "memory_total_mb", "os",
                                                            "ort_version", "huge_pages"}));
  EXPECT_EQ(report["host"]["ort_version"], "1.23.0");
  EXPECT_GE(report["host"]["logical_cores"].get<int>(), 1);
}

TEST(GenaiReportJson, BenchmarkInfo) {
  const ordered_json info = Report()["benchmark_info"];
  // clang-format off
  const std::vector<std::string> keys = {
      "runtime", "model_id", "running_model_path", "bundle_dir", "ep", "device", "effective_device", "compile",
      "compile_timeout", "compiled_stages", "last_position_logits_stages", "int4_cpu_kernel_stages", "fp32_cpu_kernel_stages", "attention_cpu_kernel_stages", "monitor",
      "iterations", "warmup", "max_new_tokens", "apply_template", "prompt", "prompt_ids", "prompt_tokens",
      "generated_tokens", "context_length", "window_size", "prompt_windows", "timestamp"};
  // clang-format on
  EXPECT_EQ(Keys(info), keys);
  EXPECT_EQ(info["runtime"], "genai");
  EXPECT_TRUE(info["prompt_ids"].is_null()) << "the prompt was text";
  EXPECT_EQ(info["model_id"], "org/tiny-llm");
  EXPECT_EQ(info["running_model_path"], "/bundles/tiny/_compiled");
  EXPECT_EQ(info["bundle_dir"], "/bundles/tiny");
  EXPECT_EQ(info["ep"], "cpu");
  EXPECT_EQ(info["device"], "config");
  EXPECT_EQ(info["effective_device"], "cpu");
  EXPECT_EQ(info["compile"], false);
  EXPECT_EQ(Num(info["compile_timeout"]), 300.0);
  EXPECT_EQ(info["compiled_stages"], (ordered_json{"ctx"}));
  EXPECT_EQ(info["last_position_logits_stages"], (ordered_json{"lm_head"}));
  EXPECT_EQ(info["int4_cpu_kernel_stages"], (ordered_json{"ctx", "iter"}));
  EXPECT_EQ(info["fp32_cpu_kernel_stages"], (ordered_json{"lm_head"}));
  EXPECT_EQ(info["attention_cpu_kernel_stages"], (ordered_json{"decoder"}));
  EXPECT_EQ(info["monitor"], false);
  EXPECT_EQ(info["iterations"], 10);
  EXPECT_EQ(info["warmup"], 2);
  EXPECT_EQ(info["max_new_tokens"], 128);
  EXPECT_EQ(info["apply_template"], true);
  EXPECT_EQ(info["prompt"], "Explain the theory of relativity in simple terms.");
  EXPECT_EQ(info["prompt_tokens"], 10);
  EXPECT_EQ(info["generated_tokens"], 3);
  EXPECT_EQ(info["context_length"], 2048);
  EXPECT_EQ(info["timestamp"], "2026-12-03T08:15:00Z");
}

TEST(GenaiReportJson, TokenCountsComeFromTheFirstTimedRequest) {
  GenaiRequestSample first = Simple();
  first.prompt_tokens = 12;
  first.generated_tokens = 5;
  GenaiRequestSample second = Simple();
  second.index = 1;
  second.prompt_tokens = 13;
  second.generated_tokens = 6;
  const ordered_json info =
      GenaiReportJson(Info(), Load(), {Warmup(0, 1000), first, second}, std::nullopt, Context())["benchmark_info"];
  EXPECT_EQ(info["prompt_tokens"], 12);
  EXPECT_EQ(info["generated_tokens"], 5);

  const ordered_json none = GenaiReportJson(Info(), Load(), {Warmup(0, 1000)}, std::nullopt, Context());
  EXPECT_TRUE(none["benchmark_info"]["prompt_tokens"].is_null());
  EXPECT_TRUE(none["benchmark_info"]["generated_tokens"].is_null());
}

TEST(GenaiReportJson, UnknownInfoIsNullNeverMinusOne) {
  GenaiBenchmarkInfo info = Info();
  info.effective_device.reset();
  info.context_length.reset();
  const ordered_json report = GenaiReportJson(info, Load(), {}, std::nullopt, Context());
  EXPECT_TRUE(report["benchmark_info"]["effective_device"].is_null());
  EXPECT_TRUE(report["benchmark_info"]["context_length"].is_null());
  EXPECT_TRUE(report["aggregate"]["cold_start_ttft_duration_ms"].is_null());
  EXPECT_TRUE(report["aggregate"]["cold_start_total_duration_ms"].is_null());
  for (const auto& item : report["aggregate"]["model_ttft_duration_ms"].items()) {
    EXPECT_TRUE(item.value().is_null()) << item.key();
  }
  EXPECT_EQ(report["aggregate"]["stages"], ordered_json::array());
  EXPECT_EQ(report["requests"], ordered_json::array());
  EXPECT_THAT(report["aggregate"].dump(), Not(HasSubstr("-1")));
}

TEST(GenaiReportJson, LoadBlock) {
  const ordered_json load = Report()["load"];
  EXPECT_EQ(Keys(load), (std::vector<std::string>{
                            "session_load_duration_ms", "ep_registration_duration_ms", "bundle_prepare_duration_ms",
                            "native_load_duration_ms", "config_create_duration_ms", "model_create_duration_ms",
                            "tokenizer_create_duration_ms", "weight_upload_duration_ms",
                            "weight_upload_estimate_duration_ms", "weight_upload_estimate_source", "stages"}));
  EXPECT_EQ(Num(load["session_load_duration_ms"]), 1500.0);
  EXPECT_EQ(Num(load["ep_registration_duration_ms"]), 2.0);
  EXPECT_EQ(Num(load["bundle_prepare_duration_ms"]), 3.0);
  EXPECT_EQ(Num(load["native_load_duration_ms"]), 1200.0);
  EXPECT_EQ(Num(load["config_create_duration_ms"]), 4.0);
  EXPECT_EQ(Num(load["model_create_duration_ms"]), 800.0);
  EXPECT_EQ(Num(load["tokenizer_create_duration_ms"]), 5.0);
  EXPECT_TRUE(load["weight_upload_duration_ms"].is_null());
  EXPECT_EQ(Num(load["weight_upload_estimate_duration_ms"]), 800.0);
  EXPECT_EQ(load["weight_upload_estimate_source"], "model_create_duration");
  ASSERT_EQ(load["stages"].size(), 2u);
  EXPECT_EQ(load["stages"][0]["name"], "ctx");
  EXPECT_EQ(Num(load["stages"][0]["session_create_duration_ms"]), 600.0);
  EXPECT_EQ(load["stages"][1]["name"], "iter");
  EXPECT_DOUBLE_EQ(Num(load["stages"][1]["session_create_duration_ms"]), 150.0);  // 150.000123 to 3 decimals

  GenaiLoadSample no_model = Load();
  no_model.model_create_ns = 0;
  const ordered_json estimate = GenaiReportJson(Info(), no_model, {}, std::nullopt, Context())["load"];
  EXPECT_TRUE(estimate["weight_upload_estimate_duration_ms"].is_null());
  EXPECT_EQ(estimate["weight_upload_estimate_source"], "unavailable");
}

TEST(GenaiReportJson, RequestDerivedFields) {
  GenaiRequestSample request = Simple();
  request.index = 7;
  const ordered_json report = GenaiReportJson(Info(), Load(), {request}, std::nullopt, Context());
  const ordered_json& r = report["requests"][0];
  EXPECT_EQ(Keys(r), (std::vector<std::string>{"kind",
                                               "index",
                                               "prompt_tokens",
                                               "generated_tokens",
                                               "context_full",
                                               "template_duration_ms",
                                               "tokenization_duration_ms",
                                               "generator_create_duration_ms",
                                               "prefill_duration_ms",
                                               "first_token_duration_ms",
                                               "decode_token_durations_ms",
                                               "sequence_fetch_duration_ms",
                                               "detokenization_duration_ms",
                                               "request_ttft_duration_ms",
                                               "model_ttft_duration_ms",
                                               "response_eval_duration_ms",
                                               "model_compute_duration_ms",
                                               "request_duration_ms",
                                               "prefill_tokens_per_second",
                                               "steady_state_decode_tokens_per_second",
                                               "response_eval_tokens_per_second",
                                               "steady_state_tpot_ms",
                                               "stages",
                                               "durations_ns"}));
  EXPECT_EQ(r["kind"], "timed");
  EXPECT_EQ(r["index"], 7);
  EXPECT_EQ(r["prompt_tokens"], 10);
  EXPECT_EQ(r["generated_tokens"], 4);
  EXPECT_DOUBLE_EQ(Num(r["template_duration_ms"]), 1.0);
  EXPECT_DOUBLE_EQ(Num(r["tokenization_duration_ms"]), 0.5);
  EXPECT_DOUBLE_EQ(Num(r["generator_create_duration_ms"]), 0.25);
  EXPECT_DOUBLE_EQ(Num(r["prefill_duration_ms"]), 20.0);
  EXPECT_DOUBLE_EQ(Num(r["first_token_duration_ms"]), 5.0);
  EXPECT_EQ(r["decode_token_durations_ms"], (ordered_json{4.0, 6.0, 5.0}));
  EXPECT_DOUBLE_EQ(Num(r["sequence_fetch_duration_ms"]), 0.1);
  EXPECT_DOUBLE_EQ(Num(r["detokenization_duration_ms"]), 0.15);
  EXPECT_DOUBLE_EQ(Num(r["model_ttft_duration_ms"]), 25.0);
  EXPECT_DOUBLE_EQ(Num(r["request_ttft_duration_ms"]), 26.75);
  EXPECT_DOUBLE_EQ(Num(r["response_eval_duration_ms"]), 20.0);
  EXPECT_DOUBLE_EQ(Num(r["model_compute_duration_ms"]), 40.0);
  EXPECT_DOUBLE_EQ(Num(r["request_duration_ms"]), 42.0);
  EXPECT_DOUBLE_EQ(Num(r["prefill_tokens_per_second"]), 500.0);              // 10 / 0.020 s
  EXPECT_DOUBLE_EQ(Num(r["steady_state_decode_tokens_per_second"]), 200.0);  // 3 / 0.015 s
  EXPECT_DOUBLE_EQ(Num(r["response_eval_tokens_per_second"]), 200.0);        // 4 / 0.020 s
  EXPECT_DOUBLE_EQ(Num(r["steady_state_tpot_ms"]), 5.0);                     // (4 + 6 + 5) / 3
  EXPECT_EQ(r["stages"], ordered_json::array());
  // The raw measurements, unrounded.
  EXPECT_EQ(r["durations_ns"], ordered_json::parse(R"({"template": 1000000, "tokenization": 500000,
      "generator_create": 250000, "prefill": 20000000, "first_token": 5000000,
      "decode_tokens": [4000000, 6000000, 5000000], "sequence_fetch": 100000, "detokenization": 150000})"));

  GenaiRequestSample warm = Warmup(3, 1000);
  const ordered_json w = GenaiReportJson(Info(), Load(), {warm}, std::nullopt, Context())["requests"][0];
  EXPECT_EQ(w["kind"], "warmup");
  EXPECT_EQ(w["index"], 3);
}

TEST(GenaiReportJson, RequestRoundingThreeDecimalsForDurationsTwoForRates) {
  GenaiRequestSample r;
  r.prompt_tokens = 7;
  r.generated_tokens = 4;
  r.template_ns = 1'234'567;  // 1.234567 ms
  r.tokenization_ns = 1'000'499;
  r.prefill_ns = 3 * kMs;
  r.first_token_ns = 1 * kMs;
  r.decode_ns = {1 * kMs, 2 * kMs, 2'000'400};
  const ordered_json j = GenaiReportJson(Info(), Load(), {r}, std::nullopt, Context())["requests"][0];
  EXPECT_DOUBLE_EQ(Num(j["template_duration_ms"]), 1.235);
  EXPECT_DOUBLE_EQ(Num(j["tokenization_duration_ms"]), 1.0);
  EXPECT_EQ(j["decode_token_durations_ms"], (ordered_json{1.0, 2.0, 2.0}));
  // 7 tokens / 0.003 s = 2333.333...
  EXPECT_DOUBLE_EQ(Num(j["prefill_tokens_per_second"]), 2333.33);
  // 3 tokens / 0.0050004 s = 599.952...
  EXPECT_DOUBLE_EQ(Num(j["steady_state_decode_tokens_per_second"]), 599.95);
  // 4 tokens / 0.0060004 s = 666.622...
  EXPECT_DOUBLE_EQ(Num(j["response_eval_tokens_per_second"]), 666.62);
  // 5.0004 ms / 3 = 1.666800
  EXPECT_DOUBLE_EQ(Num(j["steady_state_tpot_ms"]), 1.667);
  // 1.234567 + 1.000499 + 3 + 1 = 6.235066
  EXPECT_DOUBLE_EQ(Num(j["request_ttft_duration_ms"]), 6.235);
}

TEST(GenaiReportJson, NoDecodeTokensGiveZeroRatesAndTpot) {
  GenaiRequestSample r;
  r.prompt_tokens = 5;
  r.generated_tokens = 1;
  r.stages = {{"decoder", 0, 0, 0, 0}};
  const ordered_json report = GenaiReportJson(Info(), Load(), {r}, std::nullopt, Context());
  const ordered_json& j = report["requests"][0];
  EXPECT_EQ(j["decode_token_durations_ms"], ordered_json::array());
  EXPECT_EQ(Num(j["prefill_tokens_per_second"]), 0.0);
  EXPECT_EQ(Num(j["steady_state_decode_tokens_per_second"]), 0.0);
  EXPECT_EQ(Num(j["response_eval_tokens_per_second"]), 0.0);
  EXPECT_EQ(Num(j["steady_state_tpot_ms"]), 0.0);
  EXPECT_EQ(Num(report["aggregate"]["stages"][0]["share_of_model_compute"]), 0.0);

  // A first token but no later ones: the steady-state numbers are still 0, the response rate is not.
  r.first_token_ns = 4 * kMs;
  const ordered_json one = GenaiReportJson(Info(), Load(), {r}, std::nullopt, Context())["requests"][0];
  EXPECT_EQ(Num(one["steady_state_decode_tokens_per_second"]), 0.0);
  EXPECT_EQ(Num(one["steady_state_tpot_ms"]), 0.0);
  EXPECT_DOUBLE_EQ(Num(one["response_eval_tokens_per_second"]), 250.0);  // 1 / 0.004 s
}

TEST(GenaiReportJson, AggregateExcludesWarmupWithNearestRankPercentiles) {
  const ordered_json aggregate = Report()["aggregate"];
  EXPECT_EQ(Keys(aggregate),
            (std::vector<std::string>{
                "warmup_excluded", "warmup_request_count", "timed_request_count", "cold_start_ttft_duration_ms",
                "cold_start_total_duration_ms", "request_duration_ms", "model_compute_duration_ms",
                "model_ttft_duration_ms", "request_ttft_duration_ms", "prefill_duration_ms",
                "response_eval_duration_ms", "steady_state_tpot_ms", "prefill_tokens_per_second",
                "steady_state_decode_tokens_per_second", "response_eval_tokens_per_second", "stages", "durations_ns"}));
  EXPECT_EQ(aggregate["warmup_excluded"], true);
  EXPECT_EQ(aggregate["warmup_request_count"], 2);
  EXPECT_EQ(aggregate["timed_request_count"], 10);

  // Model TTFT = prefill + 1 ms: 2..11 ms. Mean 6.5; p50 = 6th smallest = 7; p90/p95/p99 of 10 = max;
  // population std of ten consecutive integers = sqrt((10^2 - 1) / 12) = 2.87228...
  const ordered_json& ttft = aggregate["model_ttft_duration_ms"];
  EXPECT_EQ(Keys(ttft), (std::vector<std::string>{"mean", "std", "min", "max", "p50", "p90", "p95", "p99"}));
  EXPECT_DOUBLE_EQ(Num(ttft["mean"]), 6.5);
  EXPECT_DOUBLE_EQ(Num(ttft["std"]), 2.872);
  EXPECT_DOUBLE_EQ(Num(ttft["min"]), 2.0);
  EXPECT_DOUBLE_EQ(Num(ttft["max"]), 11.0);
  EXPECT_DOUBLE_EQ(Num(ttft["p50"]), 7.0);
  EXPECT_DOUBLE_EQ(Num(ttft["p90"]), 11.0);
  EXPECT_DOUBLE_EQ(Num(ttft["p95"]), 11.0);
  EXPECT_DOUBLE_EQ(Num(ttft["p99"]), 11.0);

  const ordered_json& prefill = aggregate["prefill_duration_ms"];
  EXPECT_DOUBLE_EQ(Num(prefill["mean"]), 5.5);
  EXPECT_DOUBLE_EQ(Num(prefill["p50"]), 6.0);
  EXPECT_DOUBLE_EQ(Num(prefill["max"]), 10.0);
  // No template/tokenization/generator time: request TTFT equals model TTFT.
  EXPECT_DOUBLE_EQ(Num(aggregate["request_ttft_duration_ms"]["mean"]), 6.5);
  // Response eval 1 + 2 + 2 = 5 ms in every request; model compute and request = prefill + 5.
  EXPECT_DOUBLE_EQ(Num(aggregate["response_eval_duration_ms"]["mean"]), 5.0);
  EXPECT_DOUBLE_EQ(Num(aggregate["response_eval_duration_ms"]["std"]), 0.0);
  EXPECT_DOUBLE_EQ(Num(aggregate["model_compute_duration_ms"]["mean"]), 10.5);
  EXPECT_DOUBLE_EQ(Num(aggregate["request_duration_ms"]["mean"]), 10.5);
  EXPECT_DOUBLE_EQ(Num(aggregate["request_duration_ms"]["p50"]), 11.0);
  EXPECT_DOUBLE_EQ(Num(aggregate["steady_state_tpot_ms"]["mean"]), 2.0);
  // The same statistics in ns keep what 3 decimals of ms round away (std 2.87228... ms).
  const ordered_json& ns = aggregate["durations_ns"];
  EXPECT_EQ(Keys(ns), (std::vector<std::string>{"request", "model_compute", "model_ttft", "request_ttft", "prefill",
                                                "response_eval", "steady_state_tpot"}));
  EXPECT_DOUBLE_EQ(Num(ns["model_ttft"]["std"]), 2872281.3);
  EXPECT_DOUBLE_EQ(Num(ns["model_ttft"]["p50"]), 7e6);
  EXPECT_DOUBLE_EQ(Num(ns["prefill"]["max"]), 10e6);
  EXPECT_DOUBLE_EQ(Num(ns["steady_state_tpot"]["mean"]), 2e6);
  EXPECT_DOUBLE_EQ(Num(aggregate["steady_state_decode_tokens_per_second"]["mean"]), 500.0);  // 2 / 0.004 s
  EXPECT_DOUBLE_EQ(Num(aggregate["response_eval_tokens_per_second"]["mean"]), 600.0);        // 3 / 0.005 s

  // Prefill rate 10 / p s = 10000 / p_ms: mean = 1000 * H(10) = 2928.968..., sorted
  // 1000, 1111.1, 1250, 1428.6, 1666.7, 2000, 2500, 3333.3, 5000, 10000.
  const ordered_json& rate = aggregate["prefill_tokens_per_second"];
  EXPECT_DOUBLE_EQ(Num(rate["mean"]), 2928.968);
  EXPECT_DOUBLE_EQ(Num(rate["p50"]), 2000.0);
  EXPECT_DOUBLE_EQ(Num(rate["p90"]), 10000.0);
  EXPECT_DOUBLE_EQ(Num(rate["min"]), 1000.0);
  EXPECT_DOUBLE_EQ(Num(rate["max"]), 10000.0);
}

TEST(GenaiReportJson, ColdStartUsesFirstWarmupRequest) {
  // Warm-up 0: request TTFT 2 + 1 + 3 + 1000 + 500 = 1506; request 6 + 1600 + 4 + 6 = 1616; load 1500.
  const ordered_json aggregate = Report()["aggregate"];
  EXPECT_DOUBLE_EQ(Num(aggregate["cold_start_ttft_duration_ms"]), 3006.0);
  EXPECT_DOUBLE_EQ(Num(aggregate["cold_start_total_duration_ms"]), 3116.0);
}

TEST(GenaiReportJson, ColdStartUsesFirstTimedRequestWithoutWarmup) {
  std::vector<GenaiRequestSample> requests = Requests();
  requests.erase(requests.begin(), requests.begin() + 2);
  // Timed 0: prefill 5 + first token 1 = TTFT 6; request 5 + 5 = 10; load 1500.
  const ordered_json aggregate = GenaiReportJson(Info(), Load(), requests, std::nullopt, Context())["aggregate"];
  EXPECT_EQ(aggregate["warmup_request_count"], 0);
  EXPECT_EQ(aggregate["timed_request_count"], 10);
  EXPECT_DOUBLE_EQ(Num(aggregate["cold_start_ttft_duration_ms"]), 1506.0);
  EXPECT_DOUBLE_EQ(Num(aggregate["cold_start_total_duration_ms"]), 1510.0);
}

TEST(GenaiReportJson, StageBreakdownSumsAndShares) {
  // Both requests: model compute 20 + 20 = 40 ms.
  GenaiRequestSample first = Simple();
  first.stages = {{"embeddings", 1 * kMs, 1 * kMs, 1, 3}, {"ctx", 15 * kMs, 0, 1, 0}, {"iter", 0, 18 * kMs, 0, 3}};
  GenaiRequestSample second = Simple();
  second.index = 1;
  // "iter" appears twice (two runs reported separately): its times add up. No "embeddings" here: 0 ms.
  second.stages = {{"ctx", 10 * kMs, 0, 1, 0}, {"iter", 1 * kMs, 12 * kMs, 1, 2}, {"iter", 1 * kMs, 8 * kMs, 0, 1}};
  const ordered_json report =
      GenaiReportJson(Info(), Load(), {Warmup(0, 1000), first, second}, std::nullopt, Context());

  const ordered_json& per_request = report["requests"][1]["stages"];
  ASSERT_EQ(per_request.size(), 3u);
  EXPECT_EQ(per_request[1], (ordered_json{{"name", "ctx"},
                                          {"prompt_duration_ms", 15.0},
                                          {"token_duration_ms", 0.0},
                                          {"prompt_runs", 1},
                                          {"token_runs", 0}}));
  EXPECT_EQ(report["requests"][0]["stages"][0]["name"], "decoder");  // the warm-up's own stage, listed as is

  // Timed requests only (the warm-up's "decoder" is not a timed stage), in order of first appearance.
  const ordered_json& stages = report["aggregate"]["stages"];
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0]["name"], "embeddings");
  EXPECT_EQ(stages[1]["name"], "ctx");
  EXPECT_EQ(stages[2]["name"], "iter");
  EXPECT_EQ(Keys(stages[0]),
            (std::vector<std::string>{"name", "prompt_duration_ms", "token_duration_ms", "share_of_model_compute"}));
  EXPECT_DOUBLE_EQ(Num(stages[0]["prompt_duration_ms"]["mean"]), 0.5);  // (1 + 0) / 2
  EXPECT_DOUBLE_EQ(Num(stages[0]["prompt_duration_ms"]["min"]), 0.0);
  EXPECT_DOUBLE_EQ(Num(stages[1]["prompt_duration_ms"]["mean"]), 12.5);  // (15 + 10) / 2
  EXPECT_DOUBLE_EQ(Num(stages[1]["prompt_duration_ms"]["std"]), 2.5);
  EXPECT_DOUBLE_EQ(Num(stages[1]["token_duration_ms"]["max"]), 0.0);
  EXPECT_DOUBLE_EQ(Num(stages[2]["token_duration_ms"]["mean"]), 19.0);  // (18 + 12 + 8) / 2
  EXPECT_DOUBLE_EQ(Num(stages[2]["token_duration_ms"]["max"]), 20.0);
  EXPECT_DOUBLE_EQ(Num(stages[2]["prompt_duration_ms"]["mean"]), 1.0);  // (0 + 1 + 1) / 2
  // Shares of 40 ms: embeddings (2/40 + 0) / 2 = 0.025; ctx (15/40 + 10/40) / 2 = 0.3125 -> 0.313 (half away
  // from zero); iter (18/40 + 22/40) / 2 = 0.5.
  EXPECT_DOUBLE_EQ(Num(stages[0]["share_of_model_compute"]), 0.025);
  EXPECT_DOUBLE_EQ(Num(stages[1]["share_of_model_compute"]), 0.313);
  EXPECT_DOUBLE_EQ(Num(stages[2]["share_of_model_compute"]), 0.5);
}

TEST(GenaiReportJson, MemoryBlockTwoDecimalsWithPeak) {
  const ordered_json memory = Report()["memory"];
  EXPECT_EQ(Keys(memory), (std::vector<std::string>{"rss_baseline_mb", "rss_after_compile_mb", "rss_after_inference_mb",
                                                    "rss_checkpoint_peak_mb", "rss_model_load_delta_mb",
                                                    "rss_inference_delta_mb", "rss_total_delta_mb", "rss_peak_mb"}));
  EXPECT_DOUBLE_EQ(Num(memory["rss_baseline_mb"]), 100.13);
  EXPECT_DOUBLE_EQ(Num(memory["rss_after_compile_mb"]), 250.5);
  EXPECT_DOUBLE_EQ(Num(memory["rss_after_inference_mb"]), 260.04);
  EXPECT_DOUBLE_EQ(Num(memory["rss_checkpoint_peak_mb"]), 260.04);
  EXPECT_DOUBLE_EQ(Num(memory["rss_model_load_delta_mb"]), 150.37);  // 250.5 - 100.126 = 150.374
  EXPECT_DOUBLE_EQ(Num(memory["rss_inference_delta_mb"]), 9.54);     // 260.04 - 250.5
  EXPECT_DOUBLE_EQ(Num(memory["rss_total_delta_mb"]), 159.91);       // 260.04 - 100.126 = 159.914
  EXPECT_DOUBLE_EQ(Num(memory["rss_peak_mb"]), 300.46);

  GenaiMemorySample partial;
  partial.rss_baseline_mb = 10.0;
  const ordered_json some = GenaiReportJson(Info(), Load(), Requests(), partial, Context())["memory"];
  EXPECT_TRUE(some["rss_after_compile_mb"].is_null());
  EXPECT_TRUE(some["rss_total_delta_mb"].is_null());
  EXPECT_TRUE(some["rss_peak_mb"].is_null());
  EXPECT_DOUBLE_EQ(Num(some["rss_checkpoint_peak_mb"]), 10.0);
}

TEST(GenaiReportJson, MemoryBlockOnlyWhenMeasured) {
  const ordered_json report = GenaiReportJson(Info(), Load(), Requests(), std::nullopt, Context());
  EXPECT_FALSE(report.contains("memory"));
  EXPECT_EQ(Keys(report),
            (std::vector<std::string>{"schema_version", "tool", "host", "benchmark_info", "load", "requests",
                                      "aggregate", "placement", "reproducibility", "warnings"}));
}

std::string TextFor(const std::string& device, const std::string& label) {
  GenaiBenchmarkInfo info = Info();
  info.device = device::DeviceRequest::Parse(device);
  info.effective_ep = label == "config" ? device::EffectiveEp{} : device::EffectiveEp{label};
  return GenaiReportText(GenaiReportJson(info, Load(), Requests(), Memory(), Context()));
}

TEST(GenaiReportText, DeviceShowsLabelOnlyWhenItDiffers) {
  EXPECT_THAT(TextFor("config", "config"), HasSubstr("\nDevice: config\n"));
  EXPECT_THAT(TextFor("config", "cpu"), HasSubstr("\nDevice: config (cpu)\n"));
  EXPECT_THAT(TextFor("cpu", "cpu"), HasSubstr("\nDevice: cpu\n"));
  EXPECT_THAT(TextFor("npu", "simnpu"), HasSubstr("\nDevice: npu (simnpu)\n"));
}

// A pipeline run: the NPU stage lost three nodes to the CPU.
GenaiBenchmarkInfo PlacedInfo() {
  GenaiBenchmarkInfo info = Info();
  info.effective_ep = device::EffectiveEp{};
  info.effective_device = "npu";
  const std::string npu = "SimNpuExecutionProvider";
  const std::string cpu = kCpuEpName;
  info.placement = {SummarisePlacement("embeddings", cpu, {{cpu, {"Gather"}}}),
                    SummarisePlacement("decoder", npu, {{npu, {"MatMul", "Add"}}, {cpu, {"Shape"}}})};
  info.warnings = {"SimNpuExecutionProvider ran 2 of 3 nodes of decoder; 1 fell back to CPUExecutionProvider (Shape)"};
  return info;
}

TEST(GenaiReportJson, PlacementPerStageAndWarnings) {
  const ordered_json report = GenaiReportJson(PlacedInfo(), Load(), Requests(), Memory(), Context());
  ASSERT_EQ(report.at("placement").size(), 2u);
  EXPECT_EQ(report.at("placement")[0], PlacementJson(PlacedInfo().placement[0]));
  EXPECT_EQ(report.at("placement")[1].at("requested_ep"), "SimNpuExecutionProvider");
  EXPECT_EQ(report.at("warnings"), ordered_json(PlacedInfo().warnings));
}

TEST(GenaiReportJson, ReproducibilitySettings) {
  GenaiBenchmarkInfo info = PlacedInfo();
  info.options.ignore_eos = true;
  info.options.prompt_source = "file";
  info.fail_on_fallback = true;
  info.threading = {{"embeddings", 2, false}, {"decoder", 0, true, true}};
  const ordered_json block = GenaiReportJson(info, Load(), Requests(), Memory(), Context()).at("reproducibility");
  EXPECT_EQ(block.at("command_line").back(), "--ignore-eos");
  const ordered_json& settings = block.at("settings");
  EXPECT_EQ(settings.at("ignore_eos"), true);
  EXPECT_EQ(settings.at("prompt_source"), "file");
  EXPECT_EQ(settings.at("prompt_tokens"), 10);
  EXPECT_EQ(settings.at("iterations"), 10);
  EXPECT_EQ(settings.at("warmup"), 2);
  EXPECT_EQ(settings.at("fail_on_fallback"), true);
  EXPECT_EQ(
      settings.at("threading"),
      (ordered_json{
          {{"stage", "embeddings"}, {"intra_op_threads", 2}, {"spinning", false}, {"shared_pool", false}},
          {{"stage", "decoder"}, {"intra_op_threads", "ort_default"}, {"spinning", true}, {"shared_pool", true}}}));
  EXPECT_EQ(block.at("host_at_start").at("load_average_1m"), 1.5);
}

TEST(GenaiReportText, DeviceNamesTheEffectiveDeviceAndStageEps) {
  const std::string text = GenaiReportText(GenaiReportJson(PlacedInfo(), Load(), Requests(), Memory(), Context()));
  EXPECT_THAT(text, HasSubstr("\nDevice: config -> npu (SimNpu)\n"));
  EXPECT_THAT(text, HasSubstr("\nPlacement:\n  embeddings: CPU 1/1 nodes\n"
                              "  decoder: SimNpu 2/3 nodes (1 partition), CPU 1 (Shape)\n"));
  EXPECT_THAT(text, HasSubstr("  Stage    EP          Prompt  Token  Share of compute\n"
                              "  decoder  SimNpu 2/3  2.75    2.50   50.0%\n"));
  // A CPU-only run asked for no other EP.
  GenaiBenchmarkInfo cpu_only = PlacedInfo();
  cpu_only.effective_device = "cpu";
  cpu_only.placement.pop_back();
  EXPECT_THAT(GenaiReportText(GenaiReportJson(cpu_only, Load(), Requests(), Memory(), Context())),
              HasSubstr("\nDevice: config -> cpu (CPU)\n"));
}

TEST(GenaiReportText, EveryLine) {
  const std::string text = TextFor("npu", "simnpu");
  EXPECT_EQ(text.rfind("Runtime: genai\n", 0), 0u) << text;
  EXPECT_THAT(text, HasSubstr("\nBundle: /bundles/tiny\n"));
  EXPECT_THAT(text, HasSubstr("\nPrompt: 10 tokens   Generated: 3 tokens (max_new_tokens=128)\n"));
  EXPECT_THAT(text, HasSubstr("\nStartup\n"
                              "  Session load: 1.50 s\n"
                              "  Native load: 1.20 s\n"
                              "  Cold TTFT: 3.01 s\n"
                              "  Cold total: 3.12 s\n"
                              "  Weight upload estimate: 800 ms (model_create_duration)\n"));
  EXPECT_THAT(text, HasSubstr("\nTime to first token (ms)\n"
                              "  Avg   P50   P90   P95   P99   Min   Max\n"
                              "  6.50  7.00  11.0  11.0  11.0  2.00  11.0\n"));
  EXPECT_THAT(text, HasSubstr("\nPrefill: 5.50 ms avg | 2928.97 tokens/sec\n"));
  EXPECT_THAT(text, HasSubstr("\nDecode: 500.00 tokens/sec avg (p50 500.00, p90 500.00 over requests) | 2.00 "
                              "ms/token (TPOT)\n"));
  EXPECT_THAT(text, HasSubstr("\nLatency: 10.5 ms avg per generation\n"));
  EXPECT_THAT(text, Not(HasSubstr("Warm start"))) << "the same number twice under two names";
  // "decoder": prompt p/2 ms -> mean 2.75, tokens 2.5 ms, (p/2 + 2.5) / (p + 5) = half of model compute.
  EXPECT_THAT(text, HasSubstr("\nStages (ms avg per generation)\n"
                              "  Stage    EP  Prompt  Token  Share of compute\n"
                              "  decoder  -   2.75    2.50   50.0%\n"));
  EXPECT_THAT(text, HasSubstr("\nMemory (RSS): baseline 100.1 MB, after load 250.5 MB, after inference 260.0 MB, "
                              "peak 300.5 MB\n"));
  EXPECT_THAT(text, HasSubstr("\nExcluded first 2 warmup generation(s) from statistics\n"));
}

TEST(GenaiReportText, NoWarmupNoMemoryNoStagesNoEstimate) {
  std::vector<GenaiRequestSample> requests = Requests();
  requests.erase(requests.begin(), requests.begin() + 2);
  for (GenaiRequestSample& request : requests) request.stages.clear();
  GenaiLoadSample load = Load();
  load.model_create_ns = 0;
  const std::string text = GenaiReportText(GenaiReportJson(Info(), load, requests, std::nullopt, Context()));
  EXPECT_THAT(text, HasSubstr("  Cold TTFT: 1.51 s\n"));
  EXPECT_THAT(text, Not(HasSubstr("Excluded")));
  EXPECT_THAT(text, Not(HasSubstr("Memory")));
  EXPECT_THAT(text, Not(HasSubstr("Stages")));
  EXPECT_THAT(text, Not(HasSubstr("Weight upload")));
}

TEST(GenaiReportText, NothingMeasuredPrintsDashes) {
  const std::string text = GenaiReportText(GenaiReportJson(Info(), Load(), {}, std::nullopt, Context()));
  EXPECT_THAT(text, HasSubstr("\nPrompt: - tokens   Generated: - tokens (max_new_tokens=128)\n"));
  EXPECT_THAT(text, HasSubstr("  Cold TTFT: -\n"));
  EXPECT_THAT(text, HasSubstr("\nDecode: - tokens/sec avg (p50 -, p90 - over requests) | -/token (TPOT)\n"));
}

// The windowed layout's report names the window and the prompt's windows; a request that filled the context says so.
TEST(GenaiReportJson, WindowedLayoutAndContextFull) {
  GenaiBenchmarkInfo info = Info();
  info.window_size = 64;
  GenaiRequestSample request = Simple();
  request.prompt_tokens = 100;
  request.context_full = true;
  const ordered_json report = GenaiReportJson(info, Load(), {request}, std::nullopt, Context());
  EXPECT_EQ(report["benchmark_info"]["window_size"], 64);
  EXPECT_EQ(report["benchmark_info"]["prompt_windows"], 2);
  EXPECT_EQ(report["requests"][0]["context_full"], true);
  const std::string text = GenaiReportText(report);
  EXPECT_NE(text.find("Windows: 2 prompt window(s) of 64 tokens (sliding_window)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Stopped at the end of the context (context_length 2048) in 1 of 1 timed generation(s)\n"),
            std::string::npos)
      << text;

  const ordered_json plain = GenaiReportJson(Info(), Load(), {Simple()}, std::nullopt, Context());
  EXPECT_TRUE(plain["benchmark_info"]["window_size"].is_null());
  EXPECT_TRUE(plain["benchmark_info"]["prompt_windows"].is_null());
  EXPECT_EQ(plain["requests"][0]["context_full"], false);
  const std::string plain_text = GenaiReportText(plain);
  EXPECT_EQ(plain_text.find("Windows:"), std::string::npos);
  EXPECT_EQ(plain_text.find("Stopped at the end"), std::string::npos);
}

// A sweep report: the run's blocks, a cell per (prompt, gen) with the means of its timed requests, and its table.
TEST(GenaiSweep, CellsCarryTheirRatesAndRequests) {
  GenaiSweepCell small{10, 4, {Warmup(0, 99), Simple(), Simple()}};
  GenaiSweepCell large{20, 4, {Warmup(0, 99), Simple()}};
  large.requests[1].prompt_tokens = 20;  // prefill 20 tokens in 20 ms: 1000 tokens/s
  const ordered_json report = GenaiSweepJson(Info(), Load(), {small, large}, std::nullopt, Context());
  EXPECT_TRUE(IsSweepReport(report));
  EXPECT_FALSE(report.contains("requests"));
  EXPECT_FALSE(report.contains("aggregate"));
  EXPECT_EQ(report["benchmark_info"]["sweep"],
            ordered_json::parse(R"({"prompt_tokens": [10, 20], "gen_tokens": [4]})"));
  ASSERT_EQ(report["sweep"].size(), 2u);
  EXPECT_DOUBLE_EQ(Num(report["sweep"][0]["pp_tokens_per_second"]), 500.0);  // 10 tokens / 20 ms
  EXPECT_DOUBLE_EQ(Num(report["sweep"][1]["pp_tokens_per_second"]), 1000.0);
  EXPECT_DOUBLE_EQ(Num(report["sweep"][0]["tg_tokens_per_second"]), 200.0);  // 3 steps / 15 ms
  EXPECT_DOUBLE_EQ(Num(report["sweep"][0]["ttft_ms"]), 25.0);
  EXPECT_EQ(report["sweep"][0]["requests"].size(), 3u);
  EXPECT_EQ(report["sweep"][0]["aggregate"]["timed_request_count"], 2);
  const std::string text = GenaiSweepText(report);
  EXPECT_THAT(text, HasSubstr("Runtime: genai (sweep)\n"));
  EXPECT_THAT(text, HasSubstr("  Prompt  Gen  pp tokens/s  tg tokens/s  TTFT (ms)\n"
                              "  10      4    500          200          25.0\n"
                              "  20      4    1000         200          25.0\n"));
}

}  // namespace
}  // namespace modelkit::report
