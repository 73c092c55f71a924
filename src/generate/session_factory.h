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
  explicit SessionFactory(const device::EpCatalog& catalog) : catalog_(catalog) {}

  // Builds ORT session options from `config`. `where` names the config location in errors ("stage 'ctx'").
  // Throws Error(kInvalidModel) for "cpu" with options, UsageError for an EP no catalog row knows, and a runtime
  // failure when ORT refuses the EP.
  Ort::SessionOptions MakeOptions(const SessionOptionsConfig& config, const std::string& where) const;

  // Creates the session for `model`. Throws Error(kInvalidModel) when the file is missing or ORT cannot load it.
  std::unique_ptr<Ort::Session> Create(const std::filesystem::path& model, const SessionOptionsConfig& config,
                                       const std::string& where) const;

 private:
  const device::EpCatalog& catalog_;
};

}  // namespace modelkit::generate
