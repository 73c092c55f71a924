#include "session_factory.h"

#include <algorithm>
#include <map>

#include <onnxruntime_session_options_config_keys.h>
#include "modelkit/base/check.h"
#include "modelkit/base/error.h"
#include "modelkit/base/host_info.h"
#include "modelkit/base/strings.h"

#include "modelkit/device/session_ep.h"
#include "modelkit/ort/ort_error.h"
#include "modelkit/ort/placement.h"
#include "modelkit/ort/runtime.h"

#include "modelkit_ops.h"

namespace modelkit::generate {
namespace {

::GraphOptimizationLevel ToOrt(OptimizationLevel level) {
  switch (level) {
    case OptimizationLevel::kDisableAll:
      return ORT_DISABLE_ALL;
    case OptimizationLevel::kBasic:
      return ORT_ENABLE_BASIC;
    case OptimizationLevel::kExtended:
      return ORT_ENABLE_EXTENDED;
    case OptimizationLevel::kAll:
      return ORT_ENABLE_ALL;
  }
  MODELKIT_CHECK(false);
}

}  // namespace

const device::EpRow* SessionFactory::FindProvider(const ProviderConfig& provider, const std::string& where) const {
  const device::EpRow* row = catalog_.Find(provider.name);
  if (!row) {
    throw UsageError("EP '" + provider.name + "' named by the provider_options of " + where +
                     " is not known here; register a plugin EP with --ep-library NAME=PATH or run "
                     "'modelkit sys --list-ep'");
  }
  return row;
}

std::string SessionFactory::RequestedEp(const SessionOptionsConfig& config, const std::string& where) const {
  for (const ProviderConfig& provider : config.providers) {
    const device::EpRow* row = FindProvider(provider, where);
    if (!row->IsCpu()) return row->name;
  }
  return report::kCpuEpName;
}

SessionFactory::Threading SessionFactory::ThreadingOf(const SessionOptionsConfig& config) const {
  Threading threading;
  threading.intra_op_threads = config.intra_op_num_threads.value_or(ort::DefaultIntraOpThreads());
  const auto spinning = config.config_entries.find(kOrtSessionOptionsConfigAllowIntraOpSpinning);
  if (spinning != config.config_entries.end()) {
    threading.spinning = spinning->second != "0";
  } else {
    threading.shared_pool = sessions_in_turn_ > 1 && !config.intra_op_num_threads && !config.inter_op_num_threads;
    threading.spinning = sessions_in_turn_ <= 1 || threading.shared_pool;
  }
  return threading;
}

Ort::SessionOptions SessionFactory::MakeOptions(const SessionOptionsConfig& config, const std::string& where) const {
  ort::SharedEnv();
  Ort::SessionOptions options;
  ort::RecordPlacement(options);
  AddModelkitOps(options);  // for graphs rewritten to use them (kernel_rewrites.h); unused by any other
  try {
    const Threading threading = ThreadingOf(config);
    if (threading.shared_pool) {
      options.DisablePerSessionThreads();
    } else {
      options.SetIntraOpNumThreads(threading.intra_op_threads);
    }
    if (config.inter_op_num_threads) options.SetInterOpNumThreads(*config.inter_op_num_threads);
    if (config.enable_cpu_mem_arena.has_value()) {
      if (*config.enable_cpu_mem_arena) {
        options.EnableCpuMemArena();
      } else {
        options.DisableCpuMemArena();
      }
    }
    if (config.enable_mem_pattern.has_value()) {
      if (*config.enable_mem_pattern) {
        options.EnableMemPattern();
      } else {
        options.DisableMemPattern();
      }
    }
    if (config.graph_optimization_level) {
      options.SetGraphOptimizationLevel(ToOrt(*config.graph_optimization_level));
    }
    if (config.log_id) options.SetLogId(config.log_id->c_str());
    if (config.profile_prefix) options.EnableProfiling(config.profile_prefix->c_str());
    for (const auto& [key, value] : config.config_entries) options.AddConfigEntry(key.c_str(), value.c_str());
    if (!threading.spinning && !config.config_entries.contains(kOrtSessionOptionsConfigAllowIntraOpSpinning)) {
      options.AddConfigEntry(kOrtSessionOptionsConfigAllowIntraOpSpinning, "0");
    }
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ExitCode::kRuntimeFailure, "while setting the session options of " + where);
  }
  for (const ProviderConfig& provider : config.providers) {
    const device::EpRow* row = FindProvider(provider, where);
    if (row->IsCpu()) {
      if (!provider.options.empty()) {
        throw Error(ExitCode::kInvalidModel, where +
                                                 ": provider_options entry 'cpu' takes no options (CPU is always "
                                                 "available as the default fallback); use an empty list");
      }
      continue;
    }
    std::map<std::string, std::string> values(provider.options.begin(), provider.options.end());
    device::AppendSelectedEp(options, device::EpSelection{row, row->PrimaryDevice()}, values);
  }
  return options;
}

std::unique_ptr<Ort::Session> SessionFactory::Create(const std::filesystem::path& model,
                                                     const SessionOptionsConfig& config,
                                                     const std::string& where) const {
  if (!std::filesystem::is_regular_file(model)) {
    throw Error(ExitCode::kInvalidModel,
                where + ": model file " + model.string() + " does not exist; rebuild or re-download the bundle");
  }
  Ort::SessionOptions options = MakeOptions(config, where);
  try {
    return std::make_unique<Ort::Session>(ort::SharedEnv(), model.c_str(), options);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ExitCode::kInvalidModel, where + ": ONNX Runtime cannot load " + model.string());
  }
}

std::unique_ptr<Ort::Session> SessionFactory::CreateFromBytes(const std::string& model_bytes,
                                                              const std::filesystem::path& model,
                                                              const SessionOptionsConfig& config,
                                                              const std::string& where) const {
  Ort::SessionOptions options = MakeOptions(config, where);
  // External data is found beside the model's real file, as ORT does when it loads the model by path: a derived
  // bundle links its unchanged models to the bundle's, and ORT refuses data reached through a link that leaves the
  // folder it was told.
  std::error_code unresolved;
  const std::filesystem::path real_model = std::filesystem::canonical(model, unresolved);
  options.AddConfigEntry(kOrtSessionOptionsModelExternalInitializersFileFolderPath,
                         (unresolved ? model : real_model).parent_path().string().c_str());
  try {
    return std::make_unique<Ort::Session>(ort::SharedEnv(), model_bytes.data(), model_bytes.size(), options);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ExitCode::kInvalidModel, where + ": ONNX Runtime cannot load " + model.string());
  }
}

}  // namespace modelkit::generate
