#include "modelkit/perf/onnx_benchmark.h"

#include <onnxruntime_cxx_api.h>

#include <cmath>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/device/session_ep.h"
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
  }
  std::vector<HostTensor> inputs;
  uint64_t seed = 1;
  for (const TensorSpec& spec : specs) {
    TensorSpec usable = spec;
    if (usable.type == ElementType::kUndefined) {
      warnings.push_back("input '" + spec.name + "' has an unsupported type; feeding float32");
      usable.type = ElementType::kFloat;
    }
    inputs.push_back(MakeSyntheticTensor(usable, ResolveShape(usable, config, options.batch_size), seed++));
  }
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
  device::AppendSelectedEp(session_options, selection, options.ep_options);
  const Clock::time_point load_start = Clock::now();
  std::optional<Ort::Session> session;
  try {
    session.emplace(env, options.model.c_str(), session_options);
  } catch (const Ort::Exception& error) {
    ort::ThrowOrtError(error, ort::LoadFailureExitCode(error), "cannot load '" + options.model.string() + "'");
  }
  result.load_ms = MillisecondsSince(load_start, Clock::now());
  if (options.memory) result.memory.after_load = CurrentRssMb();

  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session->GetInputCount(); ++i) {
    result.inputs.push_back(SpecOf(session->GetInputNameAllocated(i, allocator).get(), session->GetInputTypeInfo(i)));
  }
  for (size_t i = 0; i < session->GetOutputCount(); ++i) {
    result.outputs.push_back(
        SpecOf(session->GetOutputNameAllocated(i, allocator).get(), session->GetOutputTypeInfo(i)));
  }

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
  auto run_once = [&]() -> double {
    const Clock::time_point start = Clock::now();
    try {
      session->Run(run_options, binding);
    } catch (const Ort::Exception& error) {
      ort::ThrowOrtError(error, ExitCode::kInferenceFailed, "inference failed on " + result.ep_name);
    }
    return MillisecondsSince(start, Clock::now());
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
    result.warmup_ms.push_back(run_once());
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
      result.samples_ms.push_back(run_once());
      if (progress) progress(++done, 0);
    } while (Clock::now() < deadline);
  } else {
    result.samples_ms.reserve(static_cast<size_t>(options.iterations));
    for (int i = 0; i < options.iterations; ++i) {
      result.samples_ms.push_back(run_once());
      if (progress) progress(++done, total_planned);
    }
  }
  if (options.memory) result.memory.after_inference = CurrentRssMb();
  return result;
}

}  // namespace modelkit::perf
