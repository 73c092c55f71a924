// genai_config.json as data: read, walk its decoder stages, write back with unknown keys and key order kept.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace modelkit::bundle {

using Json = nlohmann::ordered_json;

// The session_options entry by which a bundle chooses the kernel modelkit computes its int4 MatMulNBits nodes with
// on the CPU: "1" modelkit's own, "0" ORT's (`modelkit build --cpu-int4-kernel modelkit|ort` writes it). Without
// it, modelkit runs its own, which computes ORT's values bit for bit, faster. A string entry of session_options is
// an ORT config entry: onnxruntime-genai hands it to ORT, which keeps entries it does not know without using them.
inline constexpr const char* kInt4CpuKernelEntry = "modelkit.int4_cpu_kernel";

// Throws UsageError unless `bundle_dir` is a directory holding genai_config.json. `flag_context` names what asked
// for a bundle (e.g. "-m", "--runtime genai"); when given, the missing-directory message says that it expects a
// directory holding genai_config.json.
void RequireBundleDirectory(const std::filesystem::path& bundle_dir, std::string_view flag_context);

// Reads <bundle>/genai_config.json. Throws UsageError when the bundle directory or the file is missing, and
// Error(kInvalidModel) naming the file (and JSON path) when it is not valid JSON, has no "model" object or names a
// pipeline stage with a name that is not plain (see ForEachPipelineStage).
Json ReadGenaiConfig(const std::filesystem::path& bundle_dir);

// Calls `visit(stage_name, stage)` for every object-valued pipeline stage of model.decoder.pipeline, in order.
// Accepts the array form ([{"ctx": {...}}, {"iter": {...}}] or one object holding several stages) and the object
// form ({"ctx": {...}}). Non-object entries are skipped. Throws Error(kInvalidModel) for a stage name that is not a
// plain name (empty, ".", "..", a "/" or "\\" in it, over 128 characters): stage names become parts of file names.
void ForEachPipelineStage(Json& config, const std::function<void(const std::string&, Json&)>& visit);
void ForEachPipelineStage(const Json& config, const std::function<void(const std::string&, const Json&)>& visit);

// The provider_options list of a session_options object (a stage, or model.decoder); nullptr when absent or
// not a list.
const Json* ProviderOptionsOf(const Json& owner);

// model.decoder, or nullptr.
const Json* DecoderOf(const Json& config);

}  // namespace modelkit::bundle
