// Parsing the completion endpoints' bodies: what a client sends becomes the request, and every mistake is a 400 naming
// the parameter (the OpenAI API's behaviour).
#include "modelkit/serve/completion_request.h"

#include <gtest/gtest.h>

#include "modelkit/serve/api_error.h"

namespace modelkit::serve {
namespace {

TEST(CompletionRequestTest, ChatBodyWithEveryParameter) {
  const CompletionRequest request = ParseCompletionRequest(
      R"({"model": "m", "messages": [{"role": "system", "content": "be brief"},
          {"role": "user", "content": [{"type": "text", "text": "hi "}, {"type": "text", "text": "there"}]}],
          "max_tokens": 12, "temperature": 0, "top_p": 0.5, "top_k": 4, "seed": 7, "stop": ["\n", "END"],
          "stream": true, "stream_options": {"include_usage": true}, "n": 1, "logprobs": null, "user": "u"})",
      Endpoint::kChatCompletions);
  EXPECT_EQ(request.model, "m");
  ASSERT_EQ(request.messages.size(), 2u);
  EXPECT_EQ(request.messages[1]["content"], "hi there");
  EXPECT_EQ(request.max_tokens, 12);
  EXPECT_EQ(request.temperature, 0.0);
  EXPECT_EQ(request.top_p, 0.5);
  EXPECT_EQ(request.top_k, 4);
  EXPECT_EQ(request.seed, 7u);
  EXPECT_EQ(request.stop, (std::vector<std::string>{"\n", "END"}));
  EXPECT_TRUE(request.stream);
  EXPECT_TRUE(request.include_usage);
}

TEST(CompletionRequestTest, CompletionsTakeAPromptAndMaxCompletionTokensWins) {
  const CompletionRequest request = ParseCompletionRequest(
      R"({"model": "m", "prompt": ["once"], "max_tokens": 3, "max_completion_tokens": 5, "stop": "x"})",
      Endpoint::kCompletions);
  EXPECT_EQ(request.prompt, "once");
  EXPECT_EQ(request.max_tokens, 5);
  EXPECT_EQ(request.stop, std::vector<std::string>{"x"});
  EXPECT_FALSE(request.stream);
}

struct BadBody {
  const char* name;
  const char* body;
  Endpoint endpoint;
  const char* param;    // the parameter the error names ("" for none)
  const char* message;  // a part of the message
};

class CompletionRequestBadBodyTest : public testing::TestWithParam<BadBody> {};

TEST_P(CompletionRequestBadBodyTest, IsA400NamingTheParameter) {
  try {
    ParseCompletionRequest(GetParam().body, GetParam().endpoint);
    FAIL() << "no error for " << GetParam().body;
  } catch (const ApiError& error) {
    EXPECT_EQ(error.status(), 400);
    const nlohmann::ordered_json body = error.Body();
    EXPECT_EQ(body["error"]["type"], "invalid_request_error");
    if (*GetParam().param != '\0') {
      EXPECT_EQ(body["error"]["param"], GetParam().param);
    } else {
      EXPECT_TRUE(body["error"]["param"].is_null());
    }
    EXPECT_NE(std::string(error.what()).find(GetParam().message), std::string::npos) << error.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, CompletionRequestBadBodyTest,
    testing::Values(
        BadBody{"NotJson", "{\"model\": ", Endpoint::kChatCompletions, "", "not valid JSON"},
        BadBody{"NotAnObject", "[1]", Endpoint::kChatCompletions, "", "must be a JSON object"},
        BadBody{"NoModel", R"({"messages": [{"role": "user", "content": "x"}]})", Endpoint::kChatCompletions, "model",
                "'model' is required"},
        BadBody{"ModelNotAString", R"({"model": 3, "messages": []})", Endpoint::kChatCompletions, "model",
                "must be a string"},
        BadBody{"NoMessages", R"({"model": "m"})", Endpoint::kChatCompletions, "messages", "required"},
        BadBody{"EmptyMessages", R"({"model": "m", "messages": []})", Endpoint::kChatCompletions, "messages",
                "non-empty"},
        BadBody{"BadRole", R"({"model": "m", "messages": [{"role": "robot", "content": "x"}]})",
                Endpoint::kChatCompletions, "messages[0].role", "robot"},
        BadBody{"ImagePart", R"({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]})",
                Endpoint::kChatCompletions, "messages[0].content", "text"},
        BadBody{"NoPrompt", R"({"model": "m"})", Endpoint::kCompletions, "prompt", "required"},
        BadBody{"TokenPrompt", R"({"model": "m", "prompt": [1, 2]})", Endpoint::kCompletions, "prompt", "string"},
        BadBody{"TemperatureString",
                R"({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": "hot"})",
                Endpoint::kChatCompletions, "temperature", "must be a number"},
        BadBody{"TemperatureTooHigh",
                R"({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": 2.5})",
                Endpoint::kChatCompletions, "temperature", "between 0 and 2"},
        BadBody{"MaxTokensZero", R"({"model": "m", "prompt": "x", "max_tokens": 0})", Endpoint::kCompletions,
                "max_tokens", "between 1"},
        BadBody{"MaxTokensFraction", R"({"model": "m", "prompt": "x", "max_tokens": 1.5})", Endpoint::kCompletions,
                "max_tokens", "integer"},
        BadBody{"TwoChoices", R"({"model": "m", "prompt": "x", "n": 2})", Endpoint::kCompletions, "n", "must be 1"},
        BadBody{"FiveStops", R"({"model": "m", "prompt": "x", "stop": ["a", "b", "c", "d", "e"]})",
                Endpoint::kCompletions, "stop", "up to 4"},
        BadBody{"EmptyStop", R"({"model": "m", "prompt": "x", "stop": ""})", Endpoint::kCompletions, "stop",
                "not be empty"},
        BadBody{"StreamString", R"({"model": "m", "prompt": "x", "stream": "yes"})", Endpoint::kCompletions, "stream",
                "boolean"}),
    [](const testing::TestParamInfo<BadBody>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace modelkit::serve
