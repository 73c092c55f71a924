#include "context_blob.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "node_support.h"

namespace sim_npu {
namespace {

constexpr const char* kMagic = "SIMNPU-CONTEXT 1";

[[noreturn]] void Fail(const std::string& message) { throw Ort::Exception(message, ORT_INVALID_GRAPH); }

std::string StringAttribute(Ort::ConstNode node, const char* name) {
  Ort::ConstOpAttr attribute{nullptr};
  if (!node.GetAttributeByName(name, attribute).IsOK() || attribute == nullptr) return "";
  std::string value;
  Ort::ThrowOnError(attribute.GetValue(value));
  return value;
}

int64_t IntAttribute(Ort::ConstNode node, const char* name, int64_t fallback) {
  Ort::ConstOpAttr attribute{nullptr};
  if (!node.GetAttributeByName(name, attribute).IsOK() || attribute == nullptr) return fallback;
  int64_t value = fallback;
  Ort::ThrowOnError(attribute.GetValue(value));
  return value;
}

}  // namespace

std::string EncodeContextBlob(const ContextBlob& blob) {
  std::string out = std::string(kMagic) + "\n" + blob.ep_name + "\n" + blob.ep_version + "\n" +
                    std::to_string(blob.model_bytes.size()) + "\n";
  out += blob.model_bytes;
  return out;
}

ContextBlob DecodeContextBlob(const std::string& bytes) {
  size_t at = 0;
  const auto line = [&]() {
    const size_t end = bytes.find('\n', at);
    if (end == std::string::npos) Fail("the simulated NPU context blob is truncated or not a context blob");
    std::string text = bytes.substr(at, end - at);
    at = end + 1;
    return text;
  };
  if (line() != kMagic) Fail("the EPContext data is not a simulated NPU context blob");
  ContextBlob blob;
  blob.ep_name = line();
  blob.ep_version = line();
  const std::string count_text = line();
  size_t count = 0;
  try {
    count = std::stoull(count_text);
  } catch (const std::exception&) {
    Fail("the simulated NPU context blob has a bad length '" + count_text + "'");
  }
  // An attribute read back may carry a trailing NUL; anything shorter than announced is truncation.
  if (bytes.size() - at < count) Fail("the simulated NPU context blob is truncated");
  blob.model_bytes = bytes.substr(at, count);
  return blob;
}

Ort::Node MakeEpContextNode(Ort::ConstNode fused_node, const std::vector<std::string>& input_names,
                            const ContextBlob& blob, const EpContextTarget& target) {
  const std::string node_name = fused_node.GetName();
  std::string context = EncodeContextBlob(blob);
  if (!target.embed) {
    if (target.output_model_path.empty()) {
      Fail(blob.ep_name + ": embed_mode=0 needs the output model path (ep.context_file_path) to place the .bin file");
    }
    const std::string file_name = target.output_model_path.stem().string() + "_" + node_name + ".simnpu.bin";
    const std::filesystem::path file = target.output_model_path.parent_path() / file_name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(context.data(), static_cast<std::streamsize>(context.size()));
    if (!out.good()) Fail(blob.ep_name + ": cannot write the EPContext file " + file.string());
    context = file_name;
  }
  const int64_t embed_mode = target.embed ? 1 : 0;
  const int64_t main_context = 1;
  std::vector<Ort::OpAttr> attributes;
  attributes.emplace_back("ep_cache_context", context.data(), static_cast<int>(context.size()), ORT_OP_ATTR_STRING);
  attributes.emplace_back("embed_mode", &embed_mode, 1, ORT_OP_ATTR_INT);
  attributes.emplace_back("main_context", &main_context, 1, ORT_OP_ATTR_INT);
  attributes.emplace_back("ep_sdk_version", blob.ep_version.c_str(), static_cast<int>(blob.ep_version.size()),
                          ORT_OP_ATTR_STRING);
  attributes.emplace_back("partition_name", node_name.c_str(), static_cast<int>(node_name.size()), ORT_OP_ATTR_STRING);
  attributes.emplace_back("source", blob.ep_name.c_str(), static_cast<int>(blob.ep_name.size()), ORT_OP_ATTR_STRING);
  std::vector<std::string> output_names;
  for (const Ort::ConstValueInfo& output : fused_node.GetOutputs()) output_names.push_back(output.GetName());
  return Ort::Node("EPContext", kMsDomain, node_name, input_names, output_names, attributes);
}

ContextBlob ReadEpContextNode(Ort::ConstNode node, const std::filesystem::path& model_path) {
  const std::string context = StringAttribute(node, "ep_cache_context");
  if (context.empty()) Fail("EPContext node '" + node.GetName() + "' has no ep_cache_context");
  if (IntAttribute(node, "embed_mode", 1) == 1) return DecodeContextBlob(context);

  const std::filesystem::path relative(context);
  if (relative.is_absolute() || relative.string().find("..") != std::string::npos) {
    Fail("EPContext node '" + node.GetName() + "' names a context file outside the model's folder: " + context);
  }
  if (model_path.empty()) {
    Fail("EPContext node '" + node.GetName() + "' keeps its context in the file '" + context +
         "', which can only be found when the model is loaded from a file");
  }
  const std::filesystem::path file = model_path.parent_path() / relative;
  std::ifstream in(file, std::ios::binary);
  if (!in) Fail("cannot open the EPContext file " + file.string() + " (embed_mode=0)");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return DecodeContextBlob(bytes.str());
}

}  // namespace sim_npu
