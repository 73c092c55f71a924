// One ORT session per model or pipeline stage, configured from the stage's session_options as onnxruntime-genai
// reads them: providers through the EP catalog (an empty list means CPU), thread counts, arena / pattern flags,
// optimisation level and config entries.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <filesystem>
#include <memory>
#include <string>

#include "modelkit/device/ep_catalog.h"
#include "modelkit/generate/config.h"

namespace modelkit::generate {

class SessionFactory {
 public:
  // `catalog` must outlive the factory; plugin rows in it must already be registered with the shared ORT env.
  // `sessions_in_turn` is how many sessions run one after another for each token (pipeline stages): with more than
  // one, a session whose config sets neither its threads nor their spinning runs on the process's shared pool
  // (ort::SharedEnv), whose idle threads spin between one stage and the next. Pools of their own would each have to
  // sleep when idle, or their spinning threads would take the cores the running one needs (docs/performance.md). A
  // single session keeps a pool of its own, spinning, which makes its decode steps faster.
  SessionFactory(const device::EpCatalog& catalog, size_t sessions_in_turn)
      : catalog_(catalog), sessions_in_turn_(sessions_in_turn) {}

  // Builds ORT session options from `config`, recording where ORT places each node (ort::ReadPlacement). `where`
  // names the config location in errors ("stage 'ctx'").
  // Throws Error(kInvalidModel) for "cpu" with options, UsageError for an EP no catalog row knows, and a runtime
  // failure when ORT refuses the EP.
  Ort::SessionOptions MakeOptions(const SessionOptionsConfig& config, const std::string& where) const;

  // The intra-op threads and spinning a session made from `config` gets: the config's values, else
  // ort::DefaultIntraOpThreads() spinning, in a pool of its own for a single session and in the shared pool for
  // sessions run in turn (see the constructor).
  struct Threading {
    int intra_op_threads = 0;  // 0: ORT's own choice (a config may ask for it)
    bool spinning = true;
    bool shared_pool = false;  // the process's shared pool (ort::SharedEnv), not one of its own
  };
  Threading ThreadingOf(const SessionOptionsConfig& config) const;

  // ORT's name of the EP `config` asks for: its first provider that is not the CPU, or the CPU EP when none is.
  // Throws UsageError for a provider no catalog row knows, as MakeOptions does.
  std::string RequestedEp(const SessionOptionsConfig& config, const std::string& where) const;

  // Creates the session for `model`. Throws Error(kInvalidModel) when the file is missing or ORT cannot load it.
  std::unique_ptr<Ort::Session> Create(const std::filesystem::path& model, const SessionOptionsConfig& config,
                                       const std::string& where) const;
  // The same for `model_bytes`, a rewrite of the file `model` held in memory: its external data is read from the
  // file's directory, and errors name the file.
  std::unique_ptr<Ort::Session> CreateFromBytes(const std::string& model_bytes, const std::filesystem::path& model,
                                                const SessionOptionsConfig& config, const std::string& where) const;

 private:
  // The catalog row of `provider`; UsageError naming `where` when no row knows it.
  const device::EpRow* FindProvider(const ProviderConfig& provider, const std::string& where) const;

  const device::EpCatalog& catalog_;
  size_t sessions_in_turn_;
};

}  // namespace modelkit::generate
