#include "modelkit/serve/completion_request.h"

#include <fmt/format.h>

#include <limits>

#include "modelkit/serve/api_error.h"

namespace modelkit::serve {
namespace {

using Json = nlohmann::ordered_json;

std::string TypeName(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

// The member `name` when present and not null.
const Json* Member(const Json& body, const char* name) {
  const auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

double Number(const Json& body, const char* name, double low, double high) {
  const Json& value = *Member(body, name);
  if (!value.is_number())
    throw BadRequest(std::string("'") + name + "' must be a number, not " + TypeName(value), name);
  const double number = value.get<double>();
  if (!(number >= low && number <= high)) {
    throw BadRequest(fmt::format("'{}' must be between {} and {}, not {}", name, low, high, value.dump()), name);
  }
  return number;
}

int64_t Integer(const Json& body, const char* name, int64_t low, int64_t high) {
  const Json& value = *Member(body, name);
  if (!value.is_number_integer()) {
    throw BadRequest(std::string("'") + name + "' must be an integer, not " + TypeName(value), name);
  }
  const int64_t number = value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX}
                             ? std::numeric_limits<int64_t>::max()
                             : value.get<int64_t>();
  if (number < low || number > high) {
    throw BadRequest(std::string("'") + name + "' must be between " + std::to_string(low) + " and " +
                         std::to_string(high) + ", not " + value.dump(),
                     name);
  }
  return number;
}

std::string Text(const Json& value, const std::string& name) {
  if (!value.is_string()) throw BadRequest("'" + name + "' must be a string, not " + TypeName(value), name);
  return value.get<std::string>();
}

// A message's content: a string, or an array of {"type": "text", "text"} parts joined.
std::string Content(const Json& content, const std::string& where) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) throw BadRequest("'" + where + "' must be a string or an array of text parts", where);
  std::string text;
  for (const Json& part : content) {
    if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string()) {
      throw BadRequest("'" + where + "' may hold only {\"type\": \"text\", \"text\": ...} parts", where);
    }
    text += part["text"].get<std::string>();
  }
  return text;
}

Json Messages(const Json& body) {
  const Json* messages = Member(body, "messages");
  if (messages == nullptr) throw BadRequest("'messages' is required", "messages");
  if (!messages->is_array() || messages->empty()) {
    throw BadRequest("'messages' must be a non-empty array of {\"role\", \"content\"} objects", "messages");
  }
  Json checked = Json::array();
  for (size_t i = 0; i < messages->size(); ++i) {
    const Json& message = (*messages)[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!message.is_object()) throw BadRequest("'" + where + "' must be an object", where);
    const Json* role = Member(message, "role");
    if (role == nullptr) throw BadRequest("'" + where + ".role' is required", where + ".role");
    const std::string role_text = Text(*role, where + ".role");
    if (role_text != "system" && role_text != "user" && role_text != "assistant" && role_text != "developer") {
      throw BadRequest("'" + where + ".role' must be system, developer, user or assistant, not '" + role_text + "'",
                       where + ".role");
    }
    const Json* content = Member(message, "content");
    if (content == nullptr) throw BadRequest("'" + where + ".content' is required", where + ".content");
    checked.push_back({{"role", role_text == "developer" ? "system" : role_text},
                       {"content", Content(*content, where + ".content")}});
  }
  return checked;
}

std::vector<std::string> StopList(const Json& body) {
  const Json* stop = Member(body, "stop");
  if (stop == nullptr) return {};
  std::vector<std::string> sequences;
  if (stop->is_string()) {
    sequences.push_back(stop->get<std::string>());
  } else if (stop->is_array() && stop->size() <= 4) {
    for (const Json& item : *stop) sequences.push_back(Text(item, "stop"));
  } else {
    throw BadRequest("'stop' must be a string or an array of up to 4 strings", "stop");
  }
  for (const std::string& sequence : sequences) {
    if (sequence.empty()) throw BadRequest("'stop' sequences must not be empty", "stop");
  }
  return sequences;
}

}  // namespace

CompletionRequest ParseCompletionRequest(std::string_view body_text, Endpoint endpoint) {
  Json body;
  try {
    body = Json::parse(body_text);
  } catch (const nlohmann::json::parse_error& error) {
    throw BadRequest(std::string("the request body is not valid JSON: ") + error.what());
  }
  if (!body.is_object()) throw BadRequest("the request body must be a JSON object, not " + TypeName(body));

  CompletionRequest request;
  request.endpoint = endpoint;
  const Json* model = Member(body, "model");
  if (model == nullptr) throw BadRequest("'model' is required", "model");
  request.model = Text(*model, "model");

  if (endpoint == Endpoint::kChatCompletions) {
    request.messages = Messages(body);
  } else {
    const Json* prompt = Member(body, "prompt");
    if (prompt == nullptr) throw BadRequest("'prompt' is required", "prompt");
    if (prompt->is_array() && prompt->size() == 1 && (*prompt)[0].is_string()) {
      request.prompt = (*prompt)[0].get<std::string>();
    } else if (prompt->is_string()) {
      request.prompt = prompt->get<std::string>();
    } else {
      throw BadRequest("'prompt' must be a string (one prompt per request)", "prompt");
    }
  }

  constexpr int64_t kMaxTokens = 1 << 20;
  if (Member(body, "max_completion_tokens") != nullptr) {
    request.max_tokens = Integer(body, "max_completion_tokens", 1, kMaxTokens);
  } else if (Member(body, "max_tokens") != nullptr) {
    request.max_tokens = Integer(body, "max_tokens", 1, kMaxTokens);
  }
  if (Member(body, "temperature") != nullptr) request.temperature = Number(body, "temperature", 0.0, 2.0);
  if (Member(body, "top_p") != nullptr) request.top_p = Number(body, "top_p", 0.0, 1.0);
  if (Member(body, "top_k") != nullptr) request.top_k = static_cast<int>(Integer(body, "top_k", 0, 1 << 20));
  if (Member(body, "seed") != nullptr) {
    request.seed = static_cast<uint64_t>(
        Integer(body, "seed", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
  }
  if (Member(body, "n") != nullptr && Integer(body, "n", 1, 128) != 1) {
    throw BadRequest("'n' must be 1: one completion per request", "n");
  }
  request.stop = StopList(body);
  if (const Json* stream = Member(body, "stream")) {
    if (!stream->is_boolean()) throw BadRequest("'stream' must be a boolean, not " + TypeName(*stream), "stream");
    request.stream = stream->get<bool>();
  }
  if (const Json* options = Member(body, "stream_options")) {
    if (!options->is_object()) throw BadRequest("'stream_options' must be an object", "stream_options");
    if (const Json* usage = Member(*options, "include_usage")) {
      if (!usage->is_boolean()) throw BadRequest("'stream_options.include_usage' must be a boolean", "stream_options");
      request.include_usage = usage->get<bool>();
    }
  }
  return request;
}

}  // namespace modelkit::serve
