// `modelkit serve -m BUNDLE [-m BUNDLE...]`: the bundles behind an OpenAI-compatible HTTP API (serve/server.h,
// docs/serve.md). It binds the address, loads every model with the same session as `generate` (--ep/--device/--compile
// mean the same), then serves until SIGINT or SIGTERM, which drain: no new requests, running ones finish within
// --grace seconds, exit 0; so does --idle-timeout without requests.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "build_flags.h"
#include "commands.h"
#include "flag_checks.h"
#include "genai_flags.h"
#include "interrupt.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"
#include "modelkit/serve/server.h"
#include "modelkit/session/machine_access.h"
#include "terminal_status.h"

namespace modelkit::app {
namespace {

struct ServeFlags {
  std::vector<std::string> models;
  std::string host = "127.0.0.1";
  int port = 8000;
  int max_concurrency = 1;
  int queue = 16;
  double grace_s = 30;
  double idle_timeout_s = 0;  // 0: never
  int64_t max_body_kb = 4096;
  std::string api_key_file;
  std::string ep;
  device::DeviceRequest device = session::GenaiSessionOptions{}.device;
  GenaiCompileFlags compile;
  EpLibraryFlags ep_flags;
};

// The key: the file's first line, trimmed. A missing, unreadable or empty file is a usage error.
std::string ReadApiKey(const std::string& path) {
  std::ifstream file(path);
  std::string key;
  if (!file || !std::getline(file, key)) throw UsageError("--api-key-file " + path + ": cannot read a key from it");
  key = Trim(key);
  if (key.empty()) throw UsageError("--api-key-file " + path + ": the first line is empty; put the key there");
  return key;
}

// The name clients give as "model": the bundle directory's name.
std::string ModelId(const std::string& bundle) {
  std::filesystem::path path = std::filesystem::path(bundle).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();
  return path.filename().string();
}

int RunServe(const ServeFlags& flags) {
  std::set<std::string> ids;
  for (const std::string& model : flags.models) {
    if (!ids.insert(ModelId(model)).second) {
      throw UsageError("-m " + model + ": two models are named '" + ModelId(model) +
                       "' (the directory name); serve one of them from a directory with another name");
    }
  }
  serve::ServeOptions options;
  options.host = flags.host;
  options.port = flags.port;
  options.queue = flags.queue;
  options.max_body_bytes = static_cast<size_t>(flags.max_body_kb) * 1024;
  if (!flags.api_key_file.empty()) options.api_key = ReadApiKey(flags.api_key_file);
  static std::mutex log_mutex;
  options.log = [](const std::string& line) {
    std::lock_guard lock(log_mutex);
    std::cerr << line << "\n" << std::flush;
  };

  const InterruptScope interrupt_scope;
  serve::Server server(options);
  // The address is taken first (a port in use fails at once), every model is loaded before the server answers (a
  // bundle that fails to load is one error line, and nothing was ever served), then it listens.
  const int port = server.Bind();
  session::PluginMachineAccess machine(flags.ep_flags.Plugins());
  for (const std::string& bundle : flags.models) {
    serve::ServedModel model;
    model.id = ModelId(bundle);
    for (int i = 0; i < flags.max_concurrency; ++i) {
      auto session = std::make_unique<session::GenaiSession>(
          MakeGenaiSessionOptions(bundle, flags.ep, flags.device, flags.compile, flags.ep_flags), machine);
      session->Load();
      StopIfInterrupted();
      model.sessions.push_back(std::move(session));
    }
    const session::GenaiSession& first = *model.sessions.front();
    options.log("model " + model.id + ": " + bundle + " on " + first.effective_ep().ReportName() +
                (first.effective_device().empty() ? "" : " (" + first.effective_device() + ")") + ", " +
                std::to_string(flags.max_concurrency) + " session" + (flags.max_concurrency == 1 ? "" : "s"));
    server.AddModel(std::move(model));
  }
  server.Ready();
  std::thread listener([&server] { server.Listen(); });
  options.log("listening on http://" + flags.host + ":" + std::to_string(port));
  options.log("ready");
  const auto idle_limit = std::chrono::milliseconds(static_cast<int64_t>(flags.idle_timeout_s * 1000));
  while (!InterruptRequested()) {
    if (flags.idle_timeout_s > 0 && server.Idle() >= idle_limit) {
      std::ostringstream idle;
      idle << flags.idle_timeout_s;
      options.log("idle for " + idle.str() + " s (--idle-timeout)");
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::ostringstream grace;
  grace << flags.grace_s;
  options.log("stopping: finishing running requests (up to " + grace.str() + " s)");
  server.Drain(std::chrono::milliseconds(static_cast<int64_t>(flags.grace_s * 1000)));
  listener.join();
  options.log("stopped");
  return 0;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, CommandRunner& run) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* command =
      app.add_subcommand("serve", "Serve genai bundles over an OpenAI-compatible HTTP API (chat, completions, models)");
  command
      ->add_option("-m,--model", flags->models,
                   "Bundle directory to serve (repeatable); clients name it by its "
                   "directory name")
      ->required()
      ->check(NonEmpty());
  command->add_option("--host", flags->host, "Address to listen on (0.0.0.0: every interface)")
      ->check(NonEmpty())
      ->capture_default_str();
  command->add_option("--port", flags->port, "TCP port (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  command
      ->add_option("--max-concurrency", flags->max_concurrency,
                   "Requests generating at once per model, each on its own loaded session")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  command->add_option("--queue", flags->queue, "Requests that may wait per model; more are answered 429")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  command
      ->add_option("--grace", flags->grace_s,
                   "Seconds running requests get to finish on SIGINT/SIGTERM before they are cancelled")
      ->check(FiniteNumber(0, 3600))
      ->capture_default_str();
  command
      ->add_option("--idle-timeout", flags->idle_timeout_s,
                   "Stop (exit 0) after this many seconds without a request; 0 serves until stopped")
      ->check(FiniteNumber(0, 31'536'000))
      ->capture_default_str();
  command->add_option("--max-body-kb", flags->max_body_kb, "Largest request body in KiB; larger is answered 413")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  command
      ->add_option("--api-key-file", flags->api_key_file,
                   "File whose first line is the key every request must send as 'Authorization: Bearer KEY'")
      ->check(NonEmpty());
  command->add_option("--ep", flags->ep, "EP override for the bundles' hardware stages (alias or full name)")
      ->check(NonEmpty());
  AddDeviceOption(*command, flags->device,
                  "config (follow each bundle's own EP routing), auto, npu, gpu or cpu: the device whose EP "
                  "overrides the bundles'");
  flags->compile.Bind(*command);
  flags->ep_flags.Bind(*command);
  command->callback([flags, &run] { run = [flags] { return RunServe(*flags); }; });
}

}  // namespace modelkit::app
