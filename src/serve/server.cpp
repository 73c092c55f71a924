#include "modelkit/serve/server.h"

#include <httplib.h>

#include <atomic>
#include <cmath>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>

#include "modelkit/base/error.h"
#include "modelkit/generate/generator.h"
#include "modelkit/serve/admission.h"
#include "modelkit/serve/api_error.h"
#include "modelkit/serve/completion_request.h"
#include "modelkit/serve/metrics.h"
#include "modelkit/serve/stop_sequences.h"
#include "modelkit/session/prompt_template.h"

namespace modelkit::serve {

namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string EndpointName(Endpoint endpoint) {
  return endpoint == Endpoint::kChatCompletions ? "chat_completions" : "completions";
}

void SendError(httplib::Response& res, const ApiError& error) {
  res.status = error.status();
  res.set_content(error.Body().dump(), "application/json");
}

std::string SseEvent(const Json& data) { return "data: " + data.dump() + "\n\n"; }

// "stop" for an end of sequence or a stop sequence, "length" for a token limit.
std::string FinishReason(generate::StopReason reason, bool stopped_by_sequence) {
  if (stopped_by_sequence || reason == generate::StopReason::kEos) return "stop";
  return "length";
}

}  // namespace

// A served model with what its requests share.
struct Entry {
  std::string id;
  std::string ep;  // the effective EP, for logs and metrics
  std::vector<std::unique_ptr<session::GenaiSession>> sessions;
  std::optional<session::PromptTemplate> chat;  // nullopt: the bundle has no chat template
  std::unique_ptr<Admission> admission;
  int64_t created = 0;
};

struct Server::Impl {
  ServeOptions options;
  httplib::Server http;
  std::mutex models_mutex;  // guards `models` (entries are never removed)
  std::map<std::string, std::unique_ptr<Entry>> models;
  std::atomic<bool> ready{false};
  std::atomic<bool> draining{false};
  std::atomic<bool> cancel_all{false};
  std::atomic<int> in_flight{0};
  std::atomic<uint64_t> next_id{1};
  std::atomic<int64_t> last_activity_ns{0};  // steady clock

  void Touch() { last_activity_ns = Clock::now().time_since_epoch().count(); }
  Metrics metrics;
  int bound_port = -1;

  void Log(const std::string& line) const {
    if (options.log) options.log(line);
  }

  Entry* Find(const std::string& id) {
    std::lock_guard lock(models_mutex);
    const auto it = models.find(id);
    return it == models.end() ? nullptr : it->second.get();
  }

  void HandleCompletion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
  void Routes();
};

namespace {

// One generation's state, shared by the handler and (for a stream) the content provider that runs it.
struct Generation {
  Entry* entry = nullptr;
  CompletionRequest request;
  std::vector<int32_t> prompt;
  std::optional<Admission::Ticket> ticket;
  Clock::time_point arrival;
  std::string id;
  int64_t created = 0;
};

generate::GenerateOptions OptionsOf(const CompletionRequest& request, int64_t prompt_tokens, int64_t max_length) {
  generate::GenerateOptions options;
  options.max_new_tokens = request.max_tokens.value_or(max_length - prompt_tokens);
  if (request.temperature) {
    options.do_sample = *request.temperature > 0;
    if (*request.temperature > 0) options.temperature = *request.temperature;
  }
  if (request.top_p) options.top_p = *request.top_p;
  if (request.top_k) options.top_k = *request.top_k;
  options.seed = request.seed;
  return options;
}

Json Usage(int64_t prompt_tokens, int64_t completion_tokens) {
  return {{"prompt_tokens", prompt_tokens},
          {"completion_tokens", completion_tokens},
          {"total_tokens", prompt_tokens + completion_tokens}};
}

// What every response and chunk of a generation starts with; `streamed` picks the chunk's object type.
Json Envelope(const Generation& g, bool streamed, Json choices) {
  const bool chat = g.request.endpoint == Endpoint::kChatCompletions;
  return {{"id", g.id},
          {"object", !chat      ? "text_completion"
                     : streamed ? "chat.completion.chunk"
                                : "chat.completion"},
          {"created", g.created},
          {"model", g.request.model},
          {"choices", std::move(choices)}};
}

// A streamed chunk: a delta of text (and the role in the first chunk), or the finish reason.
Json Chunk(const Generation& g, const std::optional<std::string>& text, const std::optional<std::string>& finish,
           bool first) {
  const bool chat = g.request.endpoint == Endpoint::kChatCompletions;
  Json choice = {{"index", 0}};
  if (chat) {
    Json delta = Json::object();
    if (first) delta["role"] = "assistant";
    if (text) delta["content"] = *text;
    choice["delta"] = delta;
  } else {
    choice["text"] = text.value_or("");
  }
  if (!chat) choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish ? Json(*finish) : Json(nullptr);
  return Envelope(g, /*streamed=*/true, Json::array({choice}));
}

// The last chunk of a stream with stream_options.include_usage: no choices, the usage.
Json UsageChunk(const Generation& g, const Json& usage) {
  Json chunk = Envelope(g, /*streamed=*/true, Json::array());
  chunk["usage"] = usage;
  return chunk;
}

Json Whole(const Generation& g, const std::string& text, const std::string& finish, const Json& usage) {
  const bool chat = g.request.endpoint == Endpoint::kChatCompletions;
  Json choice = {{"index", 0}};
  if (chat) {
    choice["message"] = {{"role", "assistant"}, {"content", text}};
  } else {
    choice["text"] = text;
    choice["logprobs"] = nullptr;
  }
  choice["finish_reason"] = finish;
  Json response = Envelope(g, /*streamed=*/false, Json::array({choice}));
  response["usage"] = usage;
  return response;
}

}  // namespace

void Server::Impl::HandleCompletion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint) {
  auto g = std::make_shared<Generation>();
  g->arrival = Clock::now();
  std::string model_for_metrics = "";
  std::string ep_for_metrics = "";
  try {
    if (!ready) throw ApiError(503, "server_error", "the server is still loading its models; retry shortly");
    g->request = ParseCompletionRequest(req.body, endpoint);
    g->entry = Find(g->request.model);
    if (g->entry == nullptr) {
      throw ApiError(404, "invalid_request_error", "the model '" + g->request.model + "' does not exist", "model",
                     "model_not_found");
    }
    model_for_metrics = g->entry->id;
    ep_for_metrics = g->entry->ep;
    const generate::Model& model = g->entry->sessions.front()->model();
    if (model.tokenizer() == nullptr) {
      throw BadRequest("the model '" + g->entry->id + "' has no tokenizer, so it cannot take text", "model");
    }
    std::string text;
    if (endpoint == Endpoint::kChatCompletions) {
      if (!g->entry->chat) {
        throw BadRequest("the model '" + g->entry->id + "' has no chat template; use /v1/completions", "messages");
      }
      text = g->entry->chat->RenderMessages(g->request.messages);
    } else {
      text = g->request.prompt;
    }
    g->prompt = model.tokenizer()->Encode(text);
    if (g->prompt.empty()) throw BadRequest("the prompt is empty", endpoint == Endpoint::kCompletions ? "prompt" : "");
    const int64_t max_length = model.config().MaxLength();
    if (static_cast<int64_t>(g->prompt.size()) >= max_length) {
      throw ApiError(400, "invalid_request_error",
                     "the prompt is " + std::to_string(g->prompt.size()) + " tokens; the model's context holds " +
                         std::to_string(max_length) + " with room for at least one generated token",
                     endpoint == Endpoint::kChatCompletions ? "messages" : "prompt", "context_length_exceeded");
    }
    if (draining) throw ApiError(503, "server_error", "the server is shutting down");
    Admission::Result admitted = g->entry->admission->Enter();
    if (!admitted.ticket) {
      if (admitted.refusal == Admission::Refusal::kDraining) {
        throw ApiError(503, "server_error", "the server is shutting down");
      }
      res.set_header("Retry-After", "1");
      throw ApiError(429, "rate_limit_error",
                     "the model '" + g->entry->id + "' has " + std::to_string(options.queue) +
                         " requests waiting already; retry later",
                     "", "queue_full");
    }
    g->ticket.emplace(std::move(*admitted.ticket));
  } catch (const ApiError& error) {
    SendError(res, error);
    metrics.CountRequest(model_for_metrics, ep_for_metrics, EndpointName(endpoint), error.status());
    return;
  } catch (const Error& error) {  // a chat template that fails on these messages, for one
    const ApiError api(error.code() == ExitCode::kUsage || error.code() == ExitCode::kInvalidModel ? 400 : 500,
                       error.code() == ExitCode::kUsage || error.code() == ExitCode::kInvalidModel
                           ? "invalid_request_error"
                           : "server_error",
                       error.what());
    SendError(res, api);
    metrics.CountRequest(model_for_metrics, ep_for_metrics, EndpointName(endpoint), api.status());
    return;
  }

  g->id = (endpoint == Endpoint::kChatCompletions ? "chatcmpl-" : "cmpl-") + std::to_string(next_id++);
  g->created = static_cast<int64_t>(std::time(nullptr));
  ++in_flight;

  // Runs the generation; `emit` gets each piece of final text (false: the client is gone) and returns the finish.
  const auto run = [this, g](const std::function<bool(const std::string&)>& emit, generate::GenerationResult& result,
                             bool& stopped_by_sequence) {
    const session::GenaiSession& session = *g->entry->sessions[static_cast<size_t>(g->ticket->slot())];
    const generate::Model& model = session.model();
    StopSequences stops(g->request.stop);
    bool gone = false;
    const Clock::time_point start = Clock::now();
    result = generate::Generate(
        model, g->prompt, OptionsOf(g->request, static_cast<int64_t>(g->prompt.size()), model.config().MaxLength()),
        [&](std::string_view piece) {
          const std::string text = stops.Add(piece);
          if (!text.empty() && !gone) gone = !emit(text);
        },
        [&] { return gone || stops.stopped() || cancel_all.load(); });
    const std::string rest = stops.Finish();
    if (!rest.empty() && !gone) emit(rest);
    stopped_by_sequence = stops.stopped();
    const double ttft = std::chrono::duration<double>(start - g->arrival).count() +
                        static_cast<double>(result.timings.first_token_ns) * 1e-9;
    double tpot = -1;
    if (result.timings.decode_step_ns.size() > 0) {
      int64_t total = 0;
      for (const int64_t ns : result.timings.decode_step_ns) total += ns;
      tpot = static_cast<double>(total) * 1e-9 / static_cast<double>(result.timings.decode_step_ns.size());
    }
    metrics.RecordGeneration(g->entry->id, g->entry->ep, static_cast<int64_t>(g->prompt.size()),
                             static_cast<int64_t>(result.generated_ids.size()), ttft, tpot);
    return ttft;
  };
  const auto access_log = [this, g, endpoint](int status, const generate::GenerationResult& result, double ttft,
                                              bool stream) {
    metrics.CountRequest(g->entry->id, g->entry->ep, EndpointName(endpoint), status);
    char line[512];
    std::snprintf(line, sizeof line,
                  "POST %s %d model=%s stream=%d prompt_tokens=%zu completion_tokens=%zu ttft_ms=%.1f total_ms=%.1f",
                  endpoint == Endpoint::kChatCompletions ? "/v1/chat/completions" : "/v1/completions", status,
                  g->entry->id.c_str(), stream ? 1 : 0, g->prompt.size(), result.generated_ids.size(), ttft * 1e3,
                  SecondsSince(g->arrival) * 1e3);
    Log(line);
  };

  if (!g->request.stream) {
    generate::GenerationResult result;
    bool stopped_by_sequence = false;
    std::string text;
    double ttft = 0;
    try {
      ttft = run(
          [&](const std::string& piece) {
            text += piece;
            return true;
          },
          result, stopped_by_sequence);
    } catch (const Error& error) {
      --in_flight;
      const ApiError api(500, "server_error", std::string("generation failed: ") + error.what());
      SendError(res, api);
      access_log(500, result, 0, false);
      return;
    }
    --in_flight;
    res.set_content(
        Whole(*g, text, FinishReason(result.stop_reason, stopped_by_sequence),
              Usage(static_cast<int64_t>(g->prompt.size()), static_cast<int64_t>(result.generated_ids.size())))
            .dump(),
        "application/json");
    g->ticket.reset();
    Touch();
    access_log(200, result, ttft, false);
    return;
  }

  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, g, run, access_log](size_t, httplib::DataSink& sink) {
        generate::GenerationResult result;
        bool stopped_by_sequence = false;
        bool first = true;
        const auto write = [&](const Json& chunk) {
          const std::string event = SseEvent(chunk);
          return sink.is_writable() && sink.write(event.data(), event.size());
        };
        double ttft = 0;
        try {
          ttft = run(
              [&](const std::string& piece) {
                const bool ok = write(Chunk(*g, piece, std::nullopt, first));
                first = false;
                return ok;
              },
              result, stopped_by_sequence);
        } catch (const Error& error) {
          write(ApiError(500, "server_error", std::string("generation failed: ") + error.what()).Body());
        }
        write(Chunk(*g, std::nullopt, FinishReason(result.stop_reason, stopped_by_sequence), first));
        if (g->request.include_usage) {
          write(UsageChunk(
              *g, Usage(static_cast<int64_t>(g->prompt.size()), static_cast<int64_t>(result.generated_ids.size()))));
        }
        const std::string done = "data: [DONE]\n\n";
        if (sink.is_writable()) sink.write(done.data(), done.size());
        sink.done();
        g->ticket.reset();
        --in_flight;
        Touch();
        access_log(200, result, ttft, true);
        return true;
      },
      [g, this](bool success) {
        if (g->ticket) {  // the provider never ran to its end (the client left before it started)
          g->ticket.reset();
          --in_flight;
        }
        (void)success;
      });
}

void Server::Impl::Routes() {
  http.set_payload_max_length(options.max_body_bytes);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    Touch();
    // Health probes come from the machine's supervisor, which holds no API key.
    if (options.api_key.empty() || req.path == "/health") return httplib::Server::HandlerResponse::Unhandled;
    if (req.get_header_value("Authorization") == "Bearer " + options.api_key) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    SendError(res, ApiError(401, "authentication_error",
                            "a valid API key is required: send 'Authorization: Bearer <key>'", "", "invalid_api_key"));
    return httplib::Server::HandlerResponse::Handled;
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 413) {
      SendError(res, ApiError(413, "invalid_request_error", "the request body is larger than the server accepts"));
    } else if (res.status == 404) {
      SendError(res, ApiError(404, "invalid_request_error", "no such endpoint: " + req.method + " " + req.path));
    } else {
      SendError(res, ApiError(res.status, "invalid_request_error",
                              "the request failed with HTTP " + std::to_string(res.status)));
    }
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    if (req.path == "/v1/chat/completions" || req.path == "/v1/completions") {
      if (res.status == 200) return;  // logged with its tokens when the generation ended
      Log(req.method + " " + req.path + " " + std::to_string(res.status));
      return;
    }
    Log(req.method + " " + req.path + " " + std::to_string(res.status));
  });

  http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    if (ready && !draining) {
      res.set_content(Json{{"status", "ok"}}.dump(), "application/json");
    } else {
      res.status = 503;
      res.set_content(Json{{"status", draining ? "draining" : "loading"}}.dump(), "application/json");
    }
  });
  http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    Json data = Json::array();
    std::lock_guard lock(models_mutex);
    for (const auto& [id, entry] : models) {
      data.push_back({{"id", id}, {"object", "model"}, {"created", entry->created}, {"owned_by", "modelkit"}});
    }
    res.set_content(Json{{"object", "list"}, {"data", data}}.dump(), "application/json");
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::vector<Metrics::Gauges> gauges;
    {
      std::lock_guard lock(models_mutex);
      for (const auto& [id, entry] : models) {
        gauges.push_back({id, entry->ep, entry->admission->waiting(), entry->admission->running()});
      }
    }
    res.set_content(metrics.PrometheusText(gauges), "text/plain; version=0.0.4");
  });
  http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    HandleCompletion(req, res, Endpoint::kChatCompletions);
  });
  http.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    HandleCompletion(req, res, Endpoint::kCompletions);
  });
}

Server::Server(ServeOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  // Every waiting request holds a thread: enough for the queue, the running requests and the other endpoints.
  const size_t threads = static_cast<size_t>(impl_->options.queue) + 16;
  impl_->http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl_->Routes();
}

Server::~Server() = default;

int Server::Bind() {
  const std::string& host = impl_->options.host;
  const int port = impl_->options.port;
  const bool bound =
      port == 0 ? (impl_->bound_port = impl_->http.bind_to_any_port(host)) > 0 : impl_->http.bind_to_port(host, port);
  if (!bound) {
    throw UsageError("cannot listen on " + host + ":" + std::to_string(port) +
                     " (in use, not an address of this machine, or a privileged port); choose another --host/--port");
  }
  if (port != 0) impl_->bound_port = port;
  return impl_->bound_port;
}

void Server::Listen() { impl_->http.listen_after_bind(); }

void Server::AddModel(ServedModel model) {
  auto entry = std::make_unique<Entry>();
  entry->id = model.id;
  const session::GenaiSession& first = *model.sessions.front();
  entry->ep = first.effective_ep().ReportName();
  if (first.model().tokenizer() != nullptr) {
    session::PromptTemplate chat(first.model(), session::TemplateMode::kAuto);
    if (chat.applies()) entry->chat.emplace(std::move(chat));
  }
  entry->admission = std::make_unique<Admission>(static_cast<int>(model.sessions.size()), impl_->options.queue);
  entry->created = static_cast<int64_t>(std::time(nullptr));
  entry->sessions = std::move(model.sessions);
  std::lock_guard lock(impl_->models_mutex);
  impl_->models[entry->id] = std::move(entry);
}

void Server::Ready() {
  impl_->Touch();
  impl_->ready = true;
}

std::chrono::milliseconds Server::Idle() const {
  if (impl_->in_flight > 0) return std::chrono::milliseconds(0);
  const Clock::duration since = Clock::now().time_since_epoch() - Clock::duration(impl_->last_activity_ns.load());
  return std::chrono::duration_cast<std::chrono::milliseconds>(since);
}

void Server::Drain(std::chrono::milliseconds grace) {
  impl_->draining = true;
  {
    std::lock_guard lock(impl_->models_mutex);
    for (auto& [id, entry] : impl_->models) entry->admission->Drain();
  }
  const Clock::time_point deadline = Clock::now() + grace;
  while (impl_->in_flight > 0 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  impl_->cancel_all = true;  // what still runs stops at its next token
  while (impl_->in_flight > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  impl_->http.stop();
}

}  // namespace modelkit::serve
