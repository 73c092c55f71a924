#include "decoder_graph.h"

#include <cmath>
#include <cstdio>

#include "decoder_emitter.h"

namespace modelkit::builder {

OnnxType ActivationType(const DecoderGraphOptions& options) {
  return options.precision == Precision::kFp16 ? OnnxType::kFloat16 : OnnxType::kFloat;
}

std::string FormatLayerName(const char* format, int64_t layer) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, format, static_cast<int>(layer));
  return buffer;
}

namespace {

void AddKvInputsOutputs(const ModelSpec& spec, OnnxModelWriter& writer, OnnxType type, const OnnxDim& batch,
                        const OnnxDim& past, const OnnxDim& present) {
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    for (const char* format : {kPastKeyFormat, kPastValueFormat}) {
      writer.AddInput(FormatLayerName(format, l), type, {batch, spec.num_kv_heads, past, spec.head_dim});
    }
  }
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    for (const char* format : {kPresentKeyFormat, kPresentValueFormat}) {
      writer.AddOutput(FormatLayerName(format, l), type, {batch, spec.num_kv_heads, present, spec.head_dim});
    }
  }
}

std::string EmitLayers(const ModelSpec& spec, DecoderEmitter& emitter, std::string hidden) {
  for (int64_t l = 0; l < spec.num_layers; ++l) {
    hidden = emitter.EmitLayer(
        l, hidden, [&](int64_t layer, const std::string& q, const std::string& k, const std::string& v) {
          return emitter.EmitGroupQueryAttention(
              layer, q, k, v, FormatLayerName(kPastKeyFormat, layer), FormatLayerName(kPastValueFormat, layer),
              FormatLayerName(kPresentKeyFormat, layer), FormatLayerName(kPresentValueFormat, layer));
        });
  }
  return hidden;
}

}  // namespace

BuildProgress::BuildProgress(std::function<void(int64_t, int64_t)> callback, int64_t total)
    : callback_(std::move(callback)), total_(total) {}

void BuildProgress::Advance() {
  ++done_;
  if (callback_) callback_(done_, total_);
}

int64_t TensorReads(const ModelSpec& spec, Layout layout) {
  const int64_t reads = static_cast<int64_t>(ExpectedTensors(spec).size()) + (spec.tie_word_embeddings ? 1 : 0);
  if (layout == Layout::kFlat) return reads;
  // ctx and iter each read the layers and the final norm.
  return reads + (reads - 2);
}

uint64_t WriteFlatDecoder(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                          const std::filesystem::path& model_path, BuildProgress& progress) {
  OnnxModelWriter writer(model_path, model_path.filename().string() + ".data");
  const std::string batch = "batch_size", seq = "sequence_length", total = "total_sequence_length";
  writer.AddInput("input_ids", options.ids_type, {batch, seq});
  writer.AddInput("attention_mask", OnnxType::kInt64, {batch, total});
  writer.AddOutput("logits", ActivationType(options), {batch, seq, spec.vocab_size});
  AddKvInputsOutputs(spec, writer, ActivationType(options), batch, "past_sequence_length", total);
  DecoderEmitter emitter(spec, weights, options, writer, progress);
  emitter.EmitConstants();
  emitter.EmitSequenceLengths("attention_mask");
  const std::string hidden = EmitLayers(spec, emitter, emitter.EmitEmbeddings("input_ids"));
  emitter.EmitLmHead(emitter.EmitFinalNorm(hidden), "logits");
  return writer.Finish();
}

uint64_t WriteEmbeddingsStage(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                              const std::filesystem::path& model_path, BuildProgress& progress) {
  OnnxModelWriter writer(model_path, model_path.filename().string() + ".data");
  writer.AddInput("input_ids", options.ids_type, {"batch_size", "sequence_length"});
  writer.AddOutput(kEmbeddingsName, ActivationType(options), {"batch_size", "sequence_length", spec.hidden_size});
  DecoderEmitter emitter(spec, weights, options, writer, progress);
  emitter.EmitEmbeddings("input_ids", kEmbeddingsName);
  return writer.Finish();
}

uint64_t WriteLayersStage(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                          const std::filesystem::path& model_path, int64_t fixed_sequence_length,
                          BuildProgress& progress) {
  OnnxModelWriter writer(model_path, model_path.filename().string() + ".data");
  const OnnxDim batch = int64_t{1};
  const OnnxDim seq = fixed_sequence_length > 0 ? OnnxDim(fixed_sequence_length) : OnnxDim("sequence_length");
  writer.AddInput(kEmbeddingsName, ActivationType(options), {batch, seq, spec.hidden_size});
  writer.AddInput("attention_mask", OnnxType::kInt64, {batch, "total_sequence_length"});
  writer.AddOutput(kHiddenStatesName, ActivationType(options), {batch, seq, spec.hidden_size});
  AddKvInputsOutputs(spec, writer, ActivationType(options), batch, options.context_length, options.context_length);
  DecoderEmitter emitter(spec, weights, options, writer, progress);
  emitter.EmitConstants();
  emitter.EmitSequenceLengths("attention_mask");
  const std::string hidden = EmitLayers(spec, emitter, kEmbeddingsName);
  writer.AddNode("Identity", {emitter.EmitFinalNorm(hidden)}, {kHiddenStatesName});
  return writer.Finish();
}

uint64_t WriteLmHeadStage(const ModelSpec& spec, const WeightSource& weights, const DecoderGraphOptions& options,
                          const std::filesystem::path& model_path, BuildProgress& progress) {
  OnnxModelWriter writer(model_path, model_path.filename().string() + ".data");
  writer.AddInput(kHiddenStatesName, ActivationType(options), {"batch_size", "sequence_length", spec.hidden_size});
  writer.AddOutput("logits", ActivationType(options), {"batch_size", "sequence_length", spec.vocab_size});
  DecoderEmitter emitter(spec, weights, options, writer, progress);
  emitter.EmitLmHead(kHiddenStatesName, "logits");
  return writer.Finish();
}

}  // namespace modelkit::builder
