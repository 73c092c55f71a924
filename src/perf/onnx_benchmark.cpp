#include "modelkit/perf/onnx_benchmark.h"

#include <onnxruntime_cxx_api.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/host_info.h"
#include "modelkit/base/phase.h"
#include "modelkit/base/strings.h"
#include "modelkit/device/session_ep.h"
#include "modelkit/ort/ort_log.h"
#include "modelkit/ort/placement.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/perf/process_memory.h"
#include "npz.h"

namespace modelkit::perf {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

void ValidateOptions(const OnnxPerfOptions& options) {
  if (options.iterations < 1)
    throw UsageError("--iterations must be at least 1 (got " + std::to_string(options.iterations) + ")");
  if (options.warmup < 0) throw UsageError("--warmup must be 0 or more (got " + std::to_string(options.warmup) + ")");
  if (options.duration_s && !(std::isfinite(*options.duration_s) && *options.duration_s > 0)) {
    throw UsageError("--duration must be a positive number of seconds");
  }
  if (options.batch_size < 1) throw UsageError("--batch-size must be at least 1");
  if (options.intra_op_threads < 0) throw UsageError("--intra-op-threads must be 0 (default) or more");
  std::error_code ec;
  if (!fs::exists(options.model, ec)) {
    throw UsageError("ONNX file not found: '" + options.model.string() + "' (-m/--model)");
  }
  if (fs::is_directory(options.model, ec)) {
    if (fs::is_regular_file(options.model / "genai_config.json", ec)) {
      throw UsageError("'" + options.model.string() +
                       "' is a genai bundle, which --runtime onnx cannot run: drop --runtime (or give --runtime "
                       "genai) to benchmark the bundle, or give one of its .onnx files to benchmark that model");
    }
    throw UsageError("'" + options.model.string() +
                     "' is a directory without genai_config.json; -m needs an .onnx file or a genai bundle");
  }
}

TensorSpec SpecOf(const std::string& name, const Ort::TypeInfo& type_info) {
  TensorSpec spec;
  spec.name = name;
  if (type_info.GetONNXType() != ONNX_TYPE_TENSOR) {
    spec.type = ElementType::kUndefined;
    spec.shape_known = false;
    return spec;
  }
  const auto tensor_info = type_info.GetTensorTypeAndShapeInfo();
  spec.type = static_cast<ElementType>(tensor_info.GetElementType());
  const std::vector<int64_t> dims = tensor_info.GetShape();
  std::vector<const char*> params(dims.size(), nullptr);
  tensor_info.GetSymbolicDimensions(params.data(), params.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    Dim dim;
    if (dims[i] >= 0) dim.value = dims[i];
    if (params[i] != nullptr) dim.param = params[i];
    spec.dims.push_back(std::move(dim));
  }
  return spec;
}

// The harness makes (and reads from .npz) tensors of the element types in report::ElementType only. Anything else is
// refused before inputs are made, naming the input; fed a tensor, ORT would say "expected to be of type: 3".
void CheckFeedableInputs(Ort::Session& session, const std::vector<TensorSpec>& specs, const fs::path& model) {
  const std::string harness =
      "modelkit perf feeds numeric, bool and string tensors only (made up, or read from "
      "--input-data), so this model cannot be benchmarked as it is";
  for (size_t i = 0; i < specs.size(); ++i) {
    const Ort::TypeInfo info = session.GetInputTypeInfo(i);
    const ONNXType kind = info.GetONNXType();
    const std::string where = "'" + model.string() + "': input '" + specs[i].name + "'";
    if (kind != ONNX_TYPE_TENSOR) {
      const char* name = kind == ONNX_TYPE_SEQUENCE       ? "sequence"
                         : kind == ONNX_TYPE_MAP          ? "map"
                         : kind == ONNX_TYPE_OPTIONAL     ? "optional"
                         : kind == ONNX_TYPE_SPARSETENSOR ? "sparse tensor"
                                                          : "non-tensor value";
      throw Error(ExitCode::kInvalidModel, where + " is a " + name + ", not a tensor; " + harness);
    }
    const int type = static_cast<int>(info.GetTensorTypeAndShapeInfo().GetElementType());
    if (specs[i].type != ElementType::kString && ElementSize(specs[i].type) == 0) {
      static const std::map<int, const char*> kOtherTypes = {
          {14, "complex64"},      {15, "complex128"}, {17, "float8e4m3fn"}, {18, "float8e4m3fnuz"}, {19, "float8e5m2"},
          {20, "float8e5m2fnuz"}, {21, "uint4"},      {22, "int4"},         {23, "float4e2m1"}};
      const auto found = kOtherTypes.find(type);
      throw Error(ExitCode::kInvalidModel,
                  where + " has element type " +
                      (found != kOtherTypes.end() ? found->second : "number " + std::to_string(type)) + "; " + harness);
    }
  }
}

// What to tell a user whose model failed on made-up inputs: integer inputs get 0s and 1s, which a model that
// uses their values as indices or shapes may reject. Empty when the model has no integer input.
std::string MadeUpValuesHint(const std::vector<TensorSpec>& inputs) {
  std::vector<std::string> names;
  for (const TensorSpec& input : inputs) {
    if (IsIntegerType(input.type)) names.push_back("'" + input.name + "'");
  }
  if (names.empty()) return "";
  return "the made-up values of integer input" + std::string(names.size() > 1 ? "s " : " ") + Join(names, ", ") +
         " (0s and 1s) may not suit how the model uses them (as indices or shapes): give real values with "
         "--input-data FILE.npz, or other shapes with --shape-config FILE";
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

std::string Size(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  char text[48];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

uint64_t MemoryBudgetBytes() {
  const uint64_t total_mb = MemoryTotalMb();
  return total_mb == 0 ? std::numeric_limits<uint64_t>::max() : total_mb << 20;
}

// Bytes the synthetic input of `spec` with `shape` takes (strings counted at 32 bytes each), saturating; refuses an
// input that alone exceeds this machine's memory, naming it and its size, instead of failing in the allocator.
uint64_t CheckInputFits(const TensorSpec& spec, const std::vector<int64_t>& shape) {
  uint64_t bytes = spec.type == ElementType::kString ? 32 : ElementSize(spec.type);
  for (int64_t dim : shape) {
    if (dim < 0)
      throw UsageError("input '" + spec.name + "' would get a negative dimension (" + std::to_string(dim) +
                       "); give its shape with --shape-config");
    const uint64_t size = static_cast<uint64_t>(dim);
    bytes = size != 0 && bytes > std::numeric_limits<uint64_t>::max() / size ? std::numeric_limits<uint64_t>::max()
                                                                             : bytes * size;
  }
  if (bytes > MemoryBudgetBytes()) {
    std::string dims;
    for (int64_t dim : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(dim);
    throw UsageError("input '" + spec.name + "' of shape [" + dims + "] (" + std::string(ElementTypeName(spec.type)) +
                     ") needs " + Size(bytes) + ", more than this machine's memory (" + Size(MemoryBudgetBytes()) +
                     "); make it smaller with --batch-size or --shape-config");
  }
  return bytes;
}

void CheckInputsFit(uint64_t total_bytes) {
  if (total_bytes > MemoryBudgetBytes()) {
    throw UsageError("the inputs together need " + Size(total_bytes) + ", more than this machine's memory (" +
                     Size(MemoryBudgetBytes()) + "); make them smaller with --batch-size or --shape-config");
  }
}

Ort::Value ToOrtValue(HostTensor& tensor, const Ort::MemoryInfo& memory) {
  if (tensor.type == ElementType::kString) {
    Ort::AllocatorWithDefaultOptions allocator;
    Ort::Value value = Ort::Value::CreateTensor(allocator, tensor.shape.data(), tensor.shape.size(),
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING);
    std::vector<const char*> pointers;
    for (const std::string& text : tensor.strings) pointers.push_back(text.c_str());
    value.FillStringTensor(pointers.data(), pointers.size());
    return value;
  }
  return Ort::Value::CreateTensor(memory, tensor.data.data(), tensor.data.size(), tensor.shape.data(),
                                  tensor.shape.size(), static_cast<ONNXTensorElementDataType>(tensor.type));
}

std::vector<HostTensor> MakeInputs(const OnnxPerfOptions& options, const std::vector<TensorSpec>& specs,
                                   std::vector<std::string>& warnings) {
  if (options.input_data) {
    if (options.shape_config) warnings.push_back("--shape-config is ignored with --input-data");
    if (options.batch_size_given) warnings.push_back("--batch-size is ignored with --input-data");
    return LoadNpzInputs(*options.input_data, specs, warnings);
  }
  ShapeConfig config;
  if (options.shape_config) {
    const std::string text = ReadTextFile(*options.shape_config, "shape config");
    const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded())
      throw UsageError("shape config '" + options.shape_config->string() + "' is not valid JSON");
    config = ParseShapeConfig(json, options.shape_config->string());
    CheckShapeConfigNames(config, specs, options.shape_config->string());
  }
  std::vector<std::vector<int64_t>> shapes;
  uint64_t total_bytes = 0;
  for (const TensorSpec& spec : specs) {
    shapes.push_back(ResolveShape(spec, config, options.batch_size));
    total_bytes = SaturatingAdd(total_bytes, CheckInputFits(spec, shapes.back()));
  }
  CheckInputsFit(total_bytes);
  std::vector<HostTensor> inputs;
  uint64_t seed = 1;
  for (size_t i = 0; i < specs.size(); ++i) inputs.push_back(MakeSyntheticTensor(specs[i], shapes[i], seed++));
  return inputs;
}

}  // namespace

OnnxPerfResult RunOnnxBenchmark(const OnnxPerfOptions& options, const device::Machine& machine,
                                const ProgressCallback& progress) {
  ValidateOptions(options);
  OnnxPerfResult result;
  const device::Resolver resolver = machine.MakeResolver();
  const device::EpRow* requested_ep = options.ep.empty() ? nullptr : &machine.catalog.Normalize(options.ep);
  const device::EpSelection selection = resolver.ResolveOnnxEp(options.device, requested_ep);
  result.ep_name = selection.ep->name;
  result.ep_alias = selection.ep->Alias();
  result.resolved_device = std::string(device::DeviceName(selection.device));

  Ort::Env& env = ort::SharedEnv();
  if (options.memory) result.memory.baseline = CurrentRssMb();

  Ort::SessionOptions session_options;
  if (options.intra_op_threads > 0) session_options.SetIntraOpNumThreads(options.intra_op_threads);
  ort::RecordPlacement(session_options);
  device::AppendSelectedEp(session_options, selection, options.ep_options);
  const Clock::time_point load_start = Clock::now();
  std::optional<Ort::Session> session;
  try {
    const ScopedPhase phase("loading " + options.model.filename().string() + " on " + result.ep_alias);
    session.emplace(env, options.model.c_str(), session_options);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ort::LoadFailureExitCode(error), "cannot load '" + options.model.string() + "'");
  }
  result.load_ms = MillisecondsSince(load_start, Clock::now());
  if (options.memory) result.memory.after_load = CurrentRssMb();
  result.placement = ort::ReadPlacement(*session, options.model.filename().string(), result.ep_name);
  if (result.placement) {
    if (std::optional<std::string> shortfall = report::PlacementShortfall(*result.placement)) {
      if (options.fail_on_fallback) throw Error(ExitCode::kInferenceFailed, *shortfall + " (--fail-on-fallback)");
      result.warnings.push_back(*shortfall);
    }
  }

  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session->GetInputCount(); ++i) {
    result.inputs.push_back(SpecOf(session->GetInputNameAllocated(i, allocator).get(), session->GetInputTypeInfo(i)));
  }
  for (size_t i = 0; i < session->GetOutputCount(); ++i) {
    result.outputs.push_back(
        SpecOf(session->GetOutputNameAllocated(i, allocator).get(), session->GetOutputTypeInfo(i)));
  }

  CheckFeedableInputs(*session, result.inputs, options.model);
  // Inputs are made and bound once, outside all timing.
  std::vector<HostTensor> fed = MakeInputs(options, result.inputs, result.warnings);
  for (const HostTensor& tensor : fed) result.fed_shapes.push_back(tensor.shape);
  result.effective_batch = options.batch_size;
  for (const HostTensor& tensor : fed) {
    if (!tensor.shape.empty()) {
      result.effective_batch = tensor.shape.front();
      break;
    }
  }
  if (!options.input_data && result.effective_batch != options.batch_size) {
    result.warnings.push_back("effective batch is " + std::to_string(result.effective_batch) +
                              " (the model or shape config fixes it), not --batch-size " +
                              std::to_string(options.batch_size));
  }
  const Ort::MemoryInfo cpu_memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<Ort::Value> input_values;
  Ort::IoBinding binding(*session);
  for (HostTensor& tensor : fed) {
    input_values.push_back(ToOrtValue(tensor, cpu_memory));
    binding.BindInput(tensor.name.c_str(), input_values.back());
  }
  for (const TensorSpec& output : result.outputs) binding.BindOutput(output.name.c_str(), cpu_memory);

  Ort::RunOptions run_options;
  const std::string made_up_hint = options.input_data ? std::string() : MadeUpValuesHint(result.inputs);
  auto run_once = [&]() -> int64_t {
    const Clock::time_point start = Clock::now();
    try {
      session->Run(run_options, binding);
    } catch (const Ort::Exception& error) {
      ort::ThrowOrtError(error, ExitCode::kInferenceFailed, "inference failed on " + result.ep_name, made_up_hint);
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  };
  // After the first run the outputs ORT allocated are bound back as preallocated buffers, so later runs
  // allocate nothing. Without warm-up that first run is an extra, untimed priming run.
  bool outputs_bound = false;
  auto bind_outputs = [&] {
    std::vector<Ort::Value> produced = binding.GetOutputValues();
    binding.ClearBoundOutputs();
    for (size_t i = 0; i < produced.size(); ++i) {
      result.output_shapes.push_back(produced[i].IsTensor() ? produced[i].GetTensorTypeAndShapeInfo().GetShape()
                                                            : std::vector<int64_t>{});
      binding.BindOutput(result.outputs[i].name.c_str(), produced[i]);
    }
    outputs_bound = true;
  };
  const int total_planned = options.duration_s ? 0 : options.warmup + options.iterations;
  int done = 0;
  for (int i = 0; i < options.warmup; ++i) {
    result.warmup_ns.push_back(run_once());
    if (!outputs_bound) bind_outputs();
    if (progress) progress(++done, total_planned);
  }
  if (!outputs_bound) {
    run_once();
    bind_outputs();
    result.priming_runs = 1;
  }
  if (options.duration_s) {
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*options.duration_s));
    do {
      result.samples_ns.push_back(run_once());
      if (progress) progress(++done, 0);
    } while (Clock::now() < deadline);
  } else {
    result.samples_ns.reserve(static_cast<size_t>(options.iterations));
    for (int i = 0; i < options.iterations; ++i) {
      result.samples_ns.push_back(run_once());
      if (progress) progress(++done, total_planned);
    }
  }
  if (options.memory) result.memory.after_inference = CurrentRssMb();
  for (const std::string& warning : ort::TakeOrtWarnings()) result.warnings.push_back("ONNX Runtime: " + warning);
  return result;
}

}  // namespace modelkit::perf
