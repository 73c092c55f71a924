// The EPContext form of a compiled partition.
//
// The context blob is a small text header naming the EP that compiled it, followed by the partition serialised as
// ONNX bytes:
//   "SIMNPU-CONTEXT 1\n" <ep name> "\n" <ep version> "\n" <byte count> "\n" <bytes>
// It is stored in the EPContext node's ep_cache_context attribute (embed_mode=1) or in a file beside the compiled
// model whose name the attribute holds (embed_mode=0). Only the EP named in the blob (and in the node's `source`)
// may run it, so a model compiled for one registration is refused by another.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <filesystem>
#include <string>

namespace sim_npu {

struct ContextBlob {
  std::string ep_name;
  std::string ep_version;
  std::string model_bytes;
};

std::string EncodeContextBlob(const ContextBlob& blob);

// Parses a blob. Throws Ort::Exception (ORT_INVALID_GRAPH) for anything that is not a complete blob.
ContextBlob DecodeContextBlob(const std::string& bytes);

struct EpContextTarget {
  bool embed = true;
  std::filesystem::path output_model_path;  // where the compiled model goes; the .bin file is written beside it
};

// Creates the EPContext node replacing `fused_node`: inputs are `input_names` (the partition's non-constant inputs),
// outputs the fused node's outputs, source = blob.ep_name. For embed_mode=0 writes
// "<model stem>_<fused node name>.simnpu.bin" next to target.output_model_path. Throws Ort::Exception.
Ort::Node MakeEpContextNode(Ort::ConstNode fused_node, const std::vector<std::string>& input_names,
                            const ContextBlob& blob, const EpContextTarget& target);

// Reads the blob of an EPContext node, from the attribute or from the file it names (relative to the directory of
// `model_path`, the model being loaded). Throws Ort::Exception naming what is missing.
ContextBlob ReadEpContextNode(Ort::ConstNode node, const std::filesystem::path& model_path);

}  // namespace sim_npu
