#include "build_flags.h"

#include <iostream>

#include "modelkit/base/error.h"
#include "modelkit/device/ep_catalog.h"
#include "modelkit/session/model_source.h"
#include "terminal_status.h"

namespace modelkit::app {

std::string PipelineEpKey(const std::string& ep) {
  if (ep.empty()) return "";
  const device::EpCatalog catalog = device::EpCatalog::BuiltIn();
  const device::EpRow* row = catalog.Find(ep);
  if (row == nullptr) return ep;
  return row->IsCpu() ? "" : row->Alias();
}

builder::Precision ParsePrecision(const std::string& text) {
  if (text == "int4") return builder::Precision::kInt4;
  return text == "fp16" ? builder::Precision::kFp16 : builder::Precision::kFp32;
}

void CheckpointFlags::Bind(CLI::App& command) {
  command.add_option("--layout", layout, "Layout of the bundle built from a checkpoint or model id given as -m")
      ->transform(CLI::IsMember({"flat", "pipeline"}, CLI::ignore_case))
      ->capture_default_str();
  command.add_option("--precision", precision, "Precision of the bundle built from a checkpoint or model id")
      ->transform(CLI::IsMember({"fp32", "fp16", "int4"}, CLI::ignore_case))
      ->capture_default_str();
  command.add_option("--window", window, "Static NPU layout window of the bundle built from a checkpoint (pipeline)")
      ->check(CLI::Range(int64_t{2}, int64_t{524288}));
  command.add_flag("--rebuild", rebuild, "Build the bundle of a checkpoint or model id again, even when cached");
}

std::string ResolveGenaiModel(const std::string& model, const CheckpointFlags& flags, const CLI::App& command,
                              const std::string& ep, bool quiet) {
  const session::ModelInputKind kind = session::ClassifyModelInput(model);
  if (kind == session::ModelInputKind::kBundle || kind == session::ModelInputKind::kOther) {
    for (const char* flag : {"--layout", "--precision", "--window", "--rebuild"}) {
      if (command.count(flag) > 0 && kind == session::ModelInputKind::kBundle) {
        throw UsageError(std::string(flag) + " builds a bundle from a checkpoint or model id, but -m '" + model +
                         "' is a bundle already; rebuild it with 'modelkit build'");
      }
    }
    return model;
  }
  const std::filesystem::path checkpoint =
      kind == session::ModelInputKind::kModelId ? session::FindHubSnapshot(model) : std::filesystem::path(model);
  session::CheckpointBuild build;
  build.layout = flags.layout == "pipeline" ? builder::Layout::kPipeline : builder::Layout::kFlat;
  build.precision = ParsePrecision(flags.precision);
  build.window = flags.window;
  if (build.layout == builder::Layout::kPipeline) build.ep = PipelineEpKey(ep);
  const session::CheckpointBundle bundle = session::EnsureCheckpointBundle(
      checkpoint, build, flags.rebuild, session::BundleCacheDir(), [&](const std::string& note) {
        if (quiet) return;
        ClearStatusLine();
        std::cerr << "note: " << note << "\n" << std::flush;
      });
  return bundle.dir.string();
}

}  // namespace modelkit::app
