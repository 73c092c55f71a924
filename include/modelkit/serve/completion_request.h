// The body of POST /v1/chat/completions and /v1/completions, parsed and checked: what the server generates from. Every
// problem is an ApiError(400) naming the parameter, as the OpenAI API answers; parameters the server does not use
// (n = 1, logprobs, ...) are accepted and ignored where their value asks for nothing it cannot do.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelkit::serve {

enum class Endpoint { kChatCompletions, kCompletions };

struct CompletionRequest {
  Endpoint endpoint = Endpoint::kChatCompletions;
  std::string model;
  nlohmann::ordered_json messages;  // chat: [{"role", "content"}...], content as text
  std::string prompt;               // completions
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;  // 0: greedy
  std::optional<double> top_p;
  std::optional<int> top_k;
  std::optional<uint64_t> seed;
  std::vector<std::string> stop;  // up to 4 sequences; the text ends before the first one generated
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with usage
};

// Throws ApiError(400) for a body that is not a JSON object, a missing or mistyped parameter, or a value out of range.
CompletionRequest ParseCompletionRequest(std::string_view body, Endpoint endpoint);

}  // namespace modelkit::serve
