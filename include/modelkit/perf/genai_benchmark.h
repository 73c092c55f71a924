// The genai benchmark (U§3.5 procedure): load the session under an outer clock, then warm-up and timed requests,
// each re-running template -> tokenize -> generator creation -> prefill -> first token -> decode steps ->
// sequence fetch -> detokenisation with its own span, greedy, and the time inside every pipeline stage. Raw
// nanoseconds only; genai_report.h derives and rounds.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/perf/genai_report.h"
#include "modelkit/session/genai_session.h"
#include "modelkit/session/prompt_template.h"

namespace modelkit::perf {

inline constexpr const char* kDefaultGenaiPrompt = "Explain the theory of relativity in simple terms.";

struct GenaiPerfOptions {
  std::string prompt = kDefaultGenaiPrompt;
  session::TemplateMode template_mode = session::TemplateMode::kAuto;
  int64_t max_new_tokens = 128;
  int iterations = 10;
  int warmup = 2;
  bool memory = true;
  bool ignore_eos = false;  // generate exactly max_new_tokens (within the context) in every request
};

struct GenaiPerfResult {
  GenaiLoadSample load;
  std::vector<GenaiRequestSample> requests;  // warm-up requests first
  std::optional<GenaiMemorySample> memory;
  bool template_applied = false;
  std::string first_response;  // the first request's text
};

// Loads `session` (if not loaded yet) and runs the requests. `progress(done, total)` is called after each
// request. Throws UsageError for a prompt that tokenises to nothing or does not fit the context.
GenaiPerfResult RunGenaiBenchmark(session::GenaiSession& session, const GenaiPerfOptions& options,
                                  const std::function<void(int, int)>& progress = {});

}  // namespace modelkit::perf
