#include "modelkit/bundle/genai_config.h"

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"

namespace modelkit::bundle {
namespace {

namespace fs = std::filesystem;

// Stage names become parts of file names (compiled stages are written as <bundle>/_compiled/<stage>_<ep>_ctx.onnx),
// so one that could name another directory is refused before anything uses it.
void CheckStageName(const std::string& name) {
  constexpr size_t kMaxLength = 128;
  const bool path_like = name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
                         name.find('\\') != std::string::npos || name.find('\0') != std::string::npos;
  if (path_like || name.size() > kMaxLength) {
    throw Error(ExitCode::kInvalidModel, "genai_config.json: model.decoder.pipeline: stage name '" + name +
                                             "' must be a plain name of at most " + std::to_string(kMaxLength) +
                                             " characters (no '/', '\\', "
                                             "'.' or '..'): it becomes part of file names");
  }
}

template <typename JsonRef, typename Visit>
void VisitStages(JsonRef config, const Visit& visit) {
  if (!config.is_object() || !config.contains("model") || !config["model"].is_object()) return;
  auto& model = config["model"];
  if (!model.contains("decoder") || !model["decoder"].is_object()) return;
  auto& decoder = model["decoder"];
  if (!decoder.contains("pipeline")) return;
  auto& pipeline = decoder["pipeline"];
  auto visit_object = [&](auto& holder) {
    for (auto it = holder.begin(); it != holder.end(); ++it) {
      if (!it.value().is_object()) continue;
      CheckStageName(it.key());
      visit(it.key(), it.value());
    }
  };
  if (pipeline.is_object()) {
    visit_object(pipeline);
  } else if (pipeline.is_array()) {
    for (auto& entry : pipeline) {
      if (entry.is_object()) visit_object(entry);
    }
  }
}

}  // namespace

void RequireBundleDirectory(const fs::path& bundle_dir, std::string_view flag_context) {
  std::error_code ec;
  if (!fs::is_directory(bundle_dir, ec)) {
    std::string message = "bundle directory not found: '" + bundle_dir.string() + "'";
    if (!flag_context.empty())
      message += " (" + std::string(flag_context) + " expects a directory holding genai_config.json)";
    throw UsageError(message);
  }
  if (!fs::is_regular_file(bundle_dir / "genai_config.json", ec)) {
    throw UsageError("genai_config.json not found in '" + bundle_dir.string() +
                     "'; a genai bundle needs one (make one with 'modelkit build')");
  }
}

Json ReadGenaiConfig(const fs::path& bundle_dir) {
  RequireBundleDirectory(bundle_dir, "");
  const fs::path file = bundle_dir / "genai_config.json";
  Json config = Json::parse(ReadTextFile(file, "genai config"), nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) throw Error(ExitCode::kInvalidModel, file.string() + " is not valid JSON");
  if (!config.is_object() || !config.contains("model") || !config.at("model").is_object()) {
    throw Error(ExitCode::kInvalidModel, file.string() + ": $.model: expected an object");
  }
  VisitStages<const Json&>(config, [](const std::string&, const Json&) {});  // stage names, before any use
  return config;
}

void ForEachPipelineStage(Json& config, const std::function<void(const std::string&, Json&)>& visit) {
  VisitStages<Json&>(config, visit);
}

void ForEachPipelineStage(const Json& config, const std::function<void(const std::string&, const Json&)>& visit) {
  VisitStages<const Json&>(config, visit);
}

const Json* ProviderOptionsOf(const Json& owner) {
  if (!owner.is_object() || !owner.contains("session_options")) return nullptr;
  const Json& session = owner.at("session_options");
  if (!session.is_object() || !session.contains("provider_options")) return nullptr;
  const Json& providers = session.at("provider_options");
  return providers.is_array() ? &providers : nullptr;
}

const Json* DecoderOf(const Json& config) {
  if (!config.is_object() || !config.contains("model") || !config.at("model").is_object()) return nullptr;
  const Json& model = config.at("model");
  if (!model.contains("decoder") || !model.at("decoder").is_object()) return nullptr;
  return &model.at("decoder");
}

}  // namespace modelkit::bundle
