// A genai bundle prepared for a run with an optional EP override (docs/genai-session.md): the EP is validated
// first, then the bundle; the override is applied to a copy of the config; when it changed anything, or stages
// compile, the derived bundle `<bundle>/_compiled/` is written (atomically, under the bundle's lock) and loaded
// instead of the original; reports say which EP really ran (`effective_ep`). The original bundle is never modified.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "modelkit/bundle/genai_config.h"
#include "modelkit/compile/stage_compile.h"
#include "modelkit/device/device_request.h"
#include "modelkit/generate/model.h"
#include "modelkit/session/machine_access.h"

namespace modelkit::session {

struct GenaiSessionOptions {
  std::filesystem::path bundle_dir;
  std::string ep;  // --ep: alias or full name; "" respects the config
  device::DeviceRequest device = device::DeviceRequest::Config();
  bool compile = false;
  compile::CompilerCommand compiler;  // used when `compile`
  bool load_tokenizer = true;
  bool tokenizer_optional = false;  // generate::LoadOptions::tokenizer_optional (runs given token ids)
  // A stage whose requested EP gets fewer than all its nodes fails Load() with Error(kInferenceFailed) instead of
  // warning.
  bool fail_on_fallback = false;
  // Called with each warning the moment it arises (before the model loads, and so also when loading then fails);
  // the session keeps them in warnings() as well.
  std::function<void(const std::string&)> on_warning;
};

// Load spans in steady-clock nanoseconds; 0 for what did not happen.
struct SessionLoadTimings {
  int64_t ep_registration_ns = 0;  // plugin EP discovery/registration
  int64_t bundle_prepare_ns = 0;   // override, compile and the derived bundle
  int64_t native_load_ns = 0;      // config, sessions and tokenizer (generate::Model::Load)
  int64_t total_ns = 0;
};

class GenaiSession {
 public:
  // Validates the EP (UsageError listing the valid names), then the bundle (UsageError when the directory or its
  // genai_config.json is missing). `machine` must outlive the session.
  // Load(): an --ep naming a hardware EP that this machine cannot run is a UsageError (exit 2) whether or not a
  // device was requested, before anything is written.
  GenaiSession(GenaiSessionOptions options, MachineAccess& machine);

  // Prepares and loads; a second call does nothing. Resolution failures are UsageErrors; a bad bundle is
  // Error(kInvalidModel) from the generation runtime. Errors name the files of the bundle the user gave, never the
  // mirror entries of `_compiled/` that stand for them (compiled artifacts are named where they are).
  void Load();
  bool loaded() const { return model_ != nullptr; }

  // Requires Load().
  const generate::Model& model() const;

  // The alias of the requested override EP (from --ep, or resolved from a concrete --device); nullopt when the run
  // respects the config.
  std::optional<std::string> ep() const;
  // The override when it took effect, else the bundle's config (after Load).
  const device::EffectiveEp& effective_ep() const { return effective_ep_; }
  // The device the effective config runs on: "cpu" with no hardware provider, the one device its hardware
  // providers name or serve, or "" when that is ambiguous (after Load).
  const std::string& effective_device() const { return effective_device_; }
  // Where the model was loaded from: the bundle, or its _compiled/.
  const std::filesystem::path& load_dir() const { return load_dir_; }
  const bundle::Json& effective_config() const { return effective_config_; }
  // Messages for the user: an override that did not take effect, empty options, failed compiles.
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<compile::StageCompileReport>& compile_reports() const { return compile_reports_; }
  const SessionLoadTimings& load_timings() const { return timings_; }
  const GenaiSessionOptions& options() const { return options_; }

 private:
  void ResolveOverride();
  void RequireOverrideEpUsable();
  void Warn(const std::string& message);
  std::filesystem::path PrepareDerivedBundle(bool changed);
  bool NeedsPluginEps() const;

  GenaiSessionOptions options_;
  MachineAccess& machine_;
  const device::EpRow* override_ep_ = nullptr;  // from --ep or a concrete --device
  std::optional<device::DeviceKind> resolved_device_;
  device::EffectiveEp effective_ep_;
  std::string effective_device_;
  bundle::Json effective_config_;
  std::filesystem::path load_dir_;
  std::vector<std::string> warnings_;
  std::vector<compile::StageCompileReport> compile_reports_;
  SessionLoadTimings timings_;
  std::unique_ptr<generate::Model> model_;
};

// The device a config's providers run on (reported as effective_device): each non-CPU provider contributes its
// `device_type` option when that names a device it supports, else its only device, else its primary device;
// "cpu" when no hardware provider remains; "" when they disagree or a provider is unknown.
std::string EffectiveDevice(const bundle::Json& config, const device::EpCatalog& catalog);

}  // namespace modelkit::session
