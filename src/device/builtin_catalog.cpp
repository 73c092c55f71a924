// The built-in EP rows. Row order is priority order: every per-device list is this order filtered by device
//   npu: QNN, OpenVINO, VitisAI
//   gpu: NvTensorRTRTX, TensorRT, CUDA, MIGraphX, QNN, OpenVINO, DML, WebGPU
//   cpu: OpenVINO, CPU
// and plugin rows follow. Adding an EP means adding one row here.
#include "modelkit/device/ep_catalog.h"

namespace modelkit::device {
namespace {

using ort::AppendMethod;
constexpr DeviceKind kNpu = DeviceKind::kNpu;
constexpr DeviceKind kGpu = DeviceKind::kGpu;
constexpr DeviceKind kCpu = DeviceKind::kCpu;

EpRow Row(std::string name, std::vector<std::string> aliases, std::vector<DeviceKind> devices, bool ep_context,
          bool device_type_option, std::vector<std::string> option_keys, AppendMethod append_method,
          std::string append_name = {}) {
  EpRow row;
  row.name = std::move(name);
  row.aliases = std::move(aliases);
  row.devices = std::move(devices);
  row.ep_context = ep_context;
  row.device_type_option = device_type_option;
  row.provider_option_keys = std::move(option_keys);
  row.append_method = append_method;
  row.append_name = std::move(append_name);
  return row;
}

}  // namespace

EpCatalog EpCatalog::BuiltIn() {
  EpCatalog catalog;
  auto& rows = catalog.rows_;
  rows.push_back(Row("NvTensorRTRTXExecutionProvider", {"nvtensorrtrtx", "nv_tensorrt_rtx"}, {kGpu}, true, false,
                     {"device_id", "user_compute_stream", "nv_profile_min_shapes", "nv_profile_max_shapes",
                      "nv_profile_opt_shapes", "nv_runtime_cache_path"},
                     AppendMethod::kByName, "NvTensorRtRtx"));
  rows.push_back(Row("TensorrtExecutionProvider", {"tensorrt"}, {kGpu}, false, false,
                     {"device_id", "trt_fp16_enable", "trt_int8_enable", "trt_engine_cache_enable",
                      "trt_engine_cache_path", "trt_max_workspace_size", "trt_dump_ep_context_model"},
                     AppendMethod::kTensorRt));
  rows.push_back(Row("CUDAExecutionProvider", {"cuda"}, {kGpu}, false, false,
                     {"device_id", "gpu_mem_limit", "arena_extend_strategy", "cudnn_conv_algo_search",
                      "do_copy_in_default_stream", "enable_cuda_graph"},
                     AppendMethod::kCuda));
  rows.push_back(Row("MIGraphXExecutionProvider", {"migraphx"}, {kGpu}, false, false,
                     {"device_id", "migraphx_fp16_enable", "migraphx_int8_enable"}, AppendMethod::kByName, "MIGraphX"));
  rows.push_back(
      Row("QNNExecutionProvider", {"qnn"}, {kNpu, kGpu}, true, false,
          {"backend_path", "backend_type", "htp_performance_mode", "htp_graph_finalization_optimization_mode",
           "soc_model", "htp_arch", "device_id", "enable_htp_fp16_precision", "profiling_level"},
          AppendMethod::kByName, "QNN"));
  rows.back().needs_explicit_options = true;  // no default backend_path: empty options are worth a warning
  rows.push_back(Row("OpenVINOExecutionProvider", {"openvino"}, {kNpu, kGpu, kCpu}, true, true,
                     {"device_type", "precision", "num_of_threads", "num_streams", "cache_dir", "load_config",
                      "enable_qdq_optimizer", "disable_dynamic_shapes"},
                     AppendMethod::kByName, "OpenVINO"));
  rows.push_back(Row("DmlExecutionProvider", {"dml"}, {kGpu}, false, false, {"device_id", "performance_preference"},
                     AppendMethod::kUnsupported));
  rows.push_back(Row("WebGpuExecutionProvider", {"webgpu"}, {kGpu}, false, false,
                     {"deviceId", "webgpuInstance", "preferredLayout", "enableGraphCapture", "storageBufferCacheMode",
                      "validationMode"},
                     AppendMethod::kByName, "WebGPU"));
  rows.push_back(Row("CPUExecutionProvider", {"cpu"}, {kCpu}, false, false, {}, AppendMethod::kNone));
  rows.push_back(
      Row("VitisAIExecutionProvider", {"vitisai"}, {kNpu}, true, true,
          {"device_type", "target", "xclbin", "xlnx_enable_py3_round", "cache_dir", "cache_key", "config_file"},
          AppendMethod::kByName, "VitisAI"));
  return catalog;
}

}  // namespace modelkit::device
