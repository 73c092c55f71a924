#include "modelkit/session/genai_session.h"

#include <set>

#include "modelkit/base/check.h"
#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"
#include "modelkit/base/temp_dir.h"
#include "modelkit/bundle/derived_bundle.h"
#include "modelkit/bundle/ep_override.h"
#include "modelkit/compile/compile_cache.h"
#include "modelkit/ort/ort_log.h"

namespace modelkit::session {
namespace {

namespace fs = std::filesystem;
using generate::Clock;
using generate::NanosSince;

// Every provider entry of model.decoder's and the pipeline stages' session options.
std::vector<const bundle::Json*> ProviderEntries(const bundle::Json& config) {
  std::vector<const bundle::Json*> entries;
  const auto collect = [&](const bundle::Json& owner) {
    if (const bundle::Json* providers = bundle::ProviderOptionsOf(owner)) {
      for (const bundle::Json& entry : *providers) {
        if (entry.is_object() && entry.size() == 1) entries.push_back(&entry);
      }
    }
  };
  if (const bundle::Json* decoder = bundle::DecoderOf(config)) collect(*decoder);
  bundle::ForEachPipelineStage(config, [&](const std::string&, const bundle::Json& stage) { collect(stage); });
  return entries;
}

// `message` with every path under the derived bundle `load_dir` named as the user's bundle's file it mirrors; paths
// of compiled artifacts (in `artifacts`) stay as they are: they exist only there.
std::string NameBundleFiles(std::string message, const fs::path& bundle_dir, const fs::path& load_dir,
                            const std::set<std::string>& artifacts) {
  message = ReplaceAll(message, load_dir.string(), bundle_dir.string());
  for (const std::string& artifact : artifacts) {
    message = ReplaceAll(message, (bundle_dir / artifact).string(), (load_dir / artifact).string());
  }
  return message;
}

}  // namespace

std::string EffectiveDevice(const bundle::Json& config, const device::EpCatalog& catalog) {
  std::set<device::DeviceKind> devices;
  for (const bundle::Json* entry : ProviderEntries(config)) {
    const device::EpRow* row = catalog.Find(entry->begin().key());
    if (row == nullptr) return "";
    if (row->IsCpu()) continue;
    const bundle::Json& options = entry->begin().value();
    std::optional<device::DeviceKind> device;
    if (options.is_object() && options.contains("device_type") && options.at("device_type").is_string()) {
      device = device::ParseDeviceKind(options.at("device_type").get<std::string>());
      if (device && !row->Supports(*device)) device.reset();
    }
    if (!device && row->devices.size() == 1) device = row->devices.front();
    if (!device) return "";
    devices.insert(*device);
  }
  if (devices.empty()) return "cpu";
  return devices.size() == 1 ? std::string(device::DeviceName(*devices.begin())) : "";
}

GenaiSession::GenaiSession(GenaiSessionOptions options, MachineAccess& machine)
    : options_(std::move(options)), machine_(machine) {
  if (!options_.ep.empty()) override_ep_ = &machine_.Catalog().Normalize(options_.ep);
  bundle::RequireBundleDirectory(options_.bundle_dir, "-m");
}

std::optional<std::string> GenaiSession::ep() const {
  if (override_ep_ == nullptr) return std::nullopt;
  return override_ep_->Alias();
}

const generate::Model& GenaiSession::model() const {
  MODELKIT_CHECK(model_ != nullptr);
  return *model_;
}

void GenaiSession::Warn(const std::string& message) {
  warnings_.push_back(message);
  if (options_.on_warning) options_.on_warning(message);
}

void GenaiSession::RequireOverrideEpUsable() {
  // The CPU EP is always there; checking it would register plugin libraries a CPU run never needs.
  if (override_ep_ == nullptr || override_ep_->IsCpu()) return;
  const Clock::time_point start = Clock::now();
  const device::Machine& machine = machine_.Discover();
  timings_.ep_registration_ns += NanosSince(start);
  const device::EpRow* discovered = machine.catalog.Find(override_ep_->name);
  if (discovered != nullptr) override_ep_ = discovered;
  // Throws the same UsageError that --ep with --device auto gives when the EP cannot run here.
  machine.MakeResolver().ResolveDevice(device::DeviceRequest::Auto(), override_ep_);
}

void GenaiSession::ResolveOverride() {
  const device::DeviceRequest& device = options_.device;
  if (device.follows_config()) {
    RequireOverrideEpUsable();
    return;
  }
  if (override_ep_ != nullptr && device.kind()) {
    RequireOverrideEpUsable();
    resolved_device_ = device.kind();
    return;
  }
  // Resolving a device needs the EPs this machine really offers, plugin EPs included.
  const Clock::time_point start = Clock::now();
  const device::Machine& machine = machine_.Discover();
  timings_.ep_registration_ns += NanosSince(start);
  const device::Resolver resolver = machine.MakeResolver();
  if (override_ep_ == nullptr) {
    override_ep_ = resolver.ResolveGenaiEp(device);
    resolved_device_ = resolver.ResolveDevice(device).device;
  } else {
    override_ep_ = machine.catalog.Find(override_ep_->name);
    resolved_device_ = resolver.ResolveDevice(device, override_ep_).device;
  }
}

bool GenaiSession::NeedsPluginEps() const {
  for (const bundle::Json* entry : ProviderEntries(effective_config_)) {
    const device::EpRow* row = machine_.Catalog().Find(entry->begin().key());
    // A provider no manifest describes may come from a plugin only discovery names.
    if (row == nullptr || row->IsPlugin()) return true;
  }
  return false;
}

fs::path GenaiSession::PrepareDerivedBundle(bool changed) {
  const fs::path& bundle_dir = options_.bundle_dir;
  const std::vector<compile::StageCompileRequest> requests =
      options_.compile ? compile::CompilableStages(effective_config_, machine_.Catalog())
                       : std::vector<compile::StageCompileRequest>{};
  if (requests.empty() && !changed) return bundle_dir;
  const compile::CachePolicy cache_policy = compile::CachePolicy::FromEnvironment();  // a bad value fails first

  bundle::RemoveStaleDerivedTemporaries(bundle_dir);
  bundle::DerivedBundleContents contents;
  contents.config = effective_config_;
  std::optional<ScopedTempDir> staging;  // compile outputs; its name lets RemoveStaleDerivedTemporaries clear it
  if (!requests.empty()) {
    MODELKIT_CHECK(!options_.compiler.program.empty());
    staging = ScopedTempDir::Create(bundle_dir, std::string(bundle::kDerivedDirName) + ".tmp-");
    if (!staging) throw RuntimeError("cannot create a staging folder in '" + bundle_dir.string() + "'");
    std::vector<std::string> compile_warnings;
    compile_reports_ = compile::PrepareCompiledStages(bundle_dir, staging->path(), requests, options_.compiler,
                                                      contents.config, contents, compile_warnings);
    for (const std::string& warning : compile_warnings) Warn(warning);
  }
  // No stage compiled and nothing re-routed: the run loads what it would have loaded without --compile.
  if (contents.artifacts.empty() && !changed) return bundle_dir;
  compile::CarryCacheEntries(bundle_dir, contents, cache_policy);
  if (!bundle::DerivedBundleUpToDate(bundle_dir, contents)) bundle::WriteDerivedBundle(bundle_dir, contents);
  effective_config_ = contents.config;
  return bundle_dir / bundle::kDerivedDirName;
}

void GenaiSession::Load() {
  if (model_ != nullptr) return;
  const Clock::time_point start = Clock::now();
  ResolveOverride();

  Clock::time_point t = Clock::now();
  const bundle::Json config = bundle::ReadGenaiConfig(options_.bundle_dir);
  const device::EpCatalog& catalog = machine_.Discovered() ? machine_.Discover().catalog : machine_.Catalog();
  const std::optional<device::DeviceKind> session_device =
      bundle::SessionDevice(override_ep_, options_.device, resolved_device_);
  bundle::OverrideResult result = bundle::ApplyEpOverride(config, override_ep_, session_device, catalog);
  for (const std::string& warning : result.warnings) Warn(warning);
  effective_config_ = std::move(result.config);
  if (override_ep_ != nullptr && !bundle::OverrideTookEffect(effective_config_, override_ep_, catalog)) {
    Warn("the EP override " + override_ep_->Alias() +
         " did not take effect: no stage of this bundle runs on hardware it could re-route; the run follows the "
         "bundle config");
  }
  effective_ep_ = bundle::EffectiveEpOf(effective_config_, override_ep_, catalog);

  // Writers of _compiled/ and runs loading from it exclude each other, so no run reads a tree being replaced.
  std::optional<bundle::BundleLock> lock;
  if (options_.compile || result.changed) lock.emplace(options_.bundle_dir);
  load_dir_ = PrepareDerivedBundle(result.changed);
  if (load_dir_ == options_.bundle_dir) lock.reset();
  effective_device_ = EffectiveDevice(effective_config_, catalog);
  timings_.bundle_prepare_ns = NanosSince(t);

  if (!machine_.Discovered() && NeedsPluginEps()) {
    t = Clock::now();
    machine_.Discover();
    timings_.ep_registration_ns += NanosSince(t);
  }
  t = Clock::now();
  generate::LoadOptions load;
  load.catalog = machine_.Discovered() ? &machine_.Discover().catalog : &machine_.Catalog();
  load.load_tokenizer = options_.load_tokenizer;
  load.tokenizer_optional = options_.tokenizer_optional;
  try {
    model_ = generate::Model::Load(load_dir_, load);
  } catch (const Error& error) {
    if (load_dir_ == options_.bundle_dir) throw;
    throw Error(error.code(), NameBundleFiles(error.what(), options_.bundle_dir, load_dir_,
                                              compile::ArtifactsInUse(options_.bundle_dir)));
  }
  for (const std::string& warning : model_->warnings()) Warn(warning);
  for (const std::string& warning : ort::TakeOrtWarnings()) Warn("ONNX Runtime: " + warning);
  for (const generate::LoadedStage& stage : model_->stages()) {
    if (!stage.placement) continue;
    if (const std::optional<std::string> shortfall = report::PlacementShortfall(*stage.placement)) {
      if (options_.fail_on_fallback) throw Error(ExitCode::kInferenceFailed, *shortfall + " (--fail-on-fallback)");
      Warn(*shortfall);
    }
  }
  timings_.native_load_ns = NanosSince(t);
  timings_.total_ns = NanosSince(start);
}

}  // namespace modelkit::session
