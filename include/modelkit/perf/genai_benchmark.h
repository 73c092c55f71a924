// The genai benchmark, measured as winml-cli's perf measures a bundle: load the session under an outer clock, then
// warm-up and timed requests, each re-running template -> tokenize -> generator creation -> prefill -> first token
// -> decode steps -> sequence fetch -> detokenisation with its own span, greedy, and the time inside every pipeline
// stage. Raw nanoseconds only; report/genai_report.h derives and rounds.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/generate/timings.h"
#include "modelkit/report/genai_run.h"
#include "modelkit/session/genai_session.h"

namespace modelkit::perf {

// The run's options and measurements are the report's records.
using report::GenaiBenchmarkInfo;
using report::GenaiPerfOptions;

struct GenaiPerfResult {
  GenaiBenchmarkInfo info;  // everything but `monitor`, which the caller knows
  report::GenaiLoadSample load;
  std::vector<report::GenaiRequestSample> requests;  // warm-up requests first
  std::optional<report::GenaiMemorySample> memory;
  std::string first_response;  // the first request's text
};

// Loads `session` (if not loaded yet) and runs the requests. `progress(done, total)` is called after each
// request. Throws UsageError for a prompt that tokenises to nothing or does not fit the context.
GenaiPerfResult RunGenaiBenchmark(session::GenaiSession& session, const GenaiPerfOptions& options,
                                  const std::function<void(int, int)>& progress = {});

// A prompt of exactly `count` ordinary tokens, as sweeps feed it: the default prompt's text encoded by the bundle's
// tokenizer (special tokens left out) and repeated; without a tokenizer, ids counting up from 100 within the
// vocabulary. The same for every run of the same bundle, so sweeps of two runs compare.
std::vector<int32_t> SyntheticPromptIds(const generate::Model& model, int64_t count);

// The load's spans of a loaded `session`, with `session_load_ns` the caller's outer clock around Load().
report::GenaiLoadSample LoadSampleOf(const session::GenaiSession& session, int64_t session_load_ns);

// Fills the spans a generation measured itself (generator creation, prefill, first token, decode steps, stages)
// and its counts into `sample`; the caller's own spans (template, tokenization, fetch, detokenization) stay.
// One mapping for `perf` and `generate`, so both report the same quantities.
void FillFromGeneration(report::GenaiRequestSample& sample, const generate::GenerationTimings& timings,
                        int64_t prompt_tokens, int64_t generated_tokens, bool context_full);

}  // namespace modelkit::perf
