// `modelkit serve`: an OpenAI-compatible HTTP server (cpp-httplib) over loaded genai sessions (docs/serve.md).
// POST /v1/chat/completions and /v1/completions (non-streaming, or Server-Sent Events ending with [DONE]),
// GET /v1/models, GET /health (503 before Ready() and while draining; no API key needed), GET /metrics (Prometheus
// text). Requests for a model
// take one of its sessions in arrival order; a full queue is answered 429 with Retry-After. A client that disconnects
// mid-stream cancels its generation at the next token. Errors are OpenAI-style error objects.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "modelkit/session/genai_session.h"

namespace modelkit::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0: a free port (Bind() says which)
  int queue = 16;   // requests that may wait for a session, per model
  size_t max_body_bytes = size_t{4} << 20;
  std::string api_key;  // when set, every request needs "Authorization: Bearer <api_key>"
  // Where access log lines go (one per request) and notices; called from server threads, one line at a time.
  std::function<void(const std::string&)> log;
};

// A model the server answers for: the name clients give as "model" and its loaded sessions, one per request it may
// run at once.
struct ServedModel {
  std::string id;
  std::vector<std::unique_ptr<session::GenaiSession>> sessions;
};

class Server {
 public:
  explicit Server(ServeOptions options);
  ~Server();

  // Binds the address; returns the port. Throws UsageError naming the address when it cannot be bound.
  int Bind();
  // Serves on the bound address until Drain(); blocks (run it on its own thread).
  void Listen();
  // Adds a loaded model (before or while serving), then /health is ready once Ready() was called.
  void AddModel(ServedModel model);
  void Ready();
  // Stops admitting (new completions get 503), lets running generations finish for up to `grace`, cancels the rest
  // at their next token, and stops the server (Listen() returns).
  void Drain(std::chrono::milliseconds grace);
  // Time since the last request arrived or the last generation ended (since Ready() when none did); zero while a
  // generation runs.
  std::chrono::milliseconds Idle() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace modelkit::serve
