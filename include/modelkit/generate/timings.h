// Raw durations of loading a bundle and of one generation, in steady_clock nanoseconds (style rule 8: measure raw,
// derive later). A span that did not happen stays 0 / empty.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace modelkit::generate {

using Clock = std::chrono::steady_clock;

inline int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

struct LoadTimings {
  int64_t config_ns = 0;
  int64_t sessions_ns = 0;                                  // all sessions
  std::vector<std::pair<std::string, int64_t>> session_ns;  // per stage ("decoder" for the flat layout)
  int64_t tokenizer_ns = 0;
  int64_t total_ns = 0;
};

// Time inside ORT Run for one stage, one entry per run.
struct StageTimings {
  std::string name;
  std::vector<int64_t> prompt_run_ns;
  std::vector<int64_t> token_run_ns;
};

struct GenerationTimings {
  int64_t tokenize_ns = 0;              // set by the caller that tokenised
  int64_t generator_creation_ns = 0;    // KV cache and bindings
  int64_t prefill_ns = 0;               // the prompt's model run(s)
  int64_t first_token_ns = 0;           // prefill + choosing the first token
  std::vector<int64_t> decode_step_ns;  // each later token: model run + choosing the token
  std::vector<int64_t> decode_ort_ns;   // of which inside ORT Run calls
  int64_t detokenize_ns = 0;            // set by the caller that decoded
  std::vector<StageTimings> stages;
};

}  // namespace modelkit::generate
