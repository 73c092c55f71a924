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

}  // namespace

// A row names only what differs from EpRow's member defaults; GCC would warn about every field left out.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
EpCatalog EpCatalog::BuiltIn() {
  EpCatalog catalog;
  catalog.rows_ = {
      {.name = "NvTensorRTRTXExecutionProvider",
       .aliases = {"nvtensorrtrtx", "nv_tensorrt_rtx"},
       .devices = {kGpu},
       .ep_context = true,
       .provider_option_keys = {"device_id", "user_compute_stream", "nv_profile_min_shapes", "nv_profile_max_shapes",
                                "nv_profile_opt_shapes", "nv_runtime_cache_path"},
       .append_method = AppendMethod::kByName,
       .append_name = "NvTensorRtRtx"},
      {.name = "TensorrtExecutionProvider",
       .aliases = {"tensorrt"},
       .devices = {kGpu},
       .provider_option_keys = {"device_id", "trt_fp16_enable", "trt_int8_enable", "trt_engine_cache_enable",
                                "trt_engine_cache_path", "trt_max_workspace_size", "trt_dump_ep_context_model"},
       .append_method = AppendMethod::kTensorRt},
      {.name = "CUDAExecutionProvider",
       .aliases = {"cuda"},
       .devices = {kGpu},
       .provider_option_keys = {"device_id", "gpu_mem_limit", "arena_extend_strategy", "cudnn_conv_algo_search",
                                "do_copy_in_default_stream", "enable_cuda_graph"},
       .append_method = AppendMethod::kCuda},
      {.name = "MIGraphXExecutionProvider",
       .aliases = {"migraphx"},
       .devices = {kGpu},
       .provider_option_keys = {"device_id", "migraphx_fp16_enable", "migraphx_int8_enable"},
       .append_method = AppendMethod::kByName,
       .append_name = "MIGraphX"},
      {.name = "QNNExecutionProvider",
       .aliases = {"qnn"},
       .devices = {kNpu, kGpu},
       .ep_context = true,
       .needs_explicit_options = true,  // no default backend_path: empty options are worth a warning
       .provider_option_keys = {"backend_path", "backend_type", "htp_performance_mode",
                                "htp_graph_finalization_optimization_mode", "soc_model", "htp_arch", "device_id",
                                "enable_htp_fp16_precision", "profiling_level"},
       .append_method = AppendMethod::kByName,
       .append_name = "QNN"},
      {.name = "OpenVINOExecutionProvider",
       .aliases = {"openvino"},
       .devices = {kNpu, kGpu, kCpu},
       .ep_context = true,
       .device_type_option = true,
       .provider_option_keys = {"device_type", "precision", "num_of_threads", "num_streams", "cache_dir", "load_config",
                                "enable_qdq_optimizer", "disable_dynamic_shapes"},
       .append_method = AppendMethod::kByName,
       .append_name = "OpenVINO"},
      {.name = "DmlExecutionProvider",
       .aliases = {"dml"},
       .devices = {kGpu},
       .provider_option_keys = {"device_id", "performance_preference"},
       .append_method = AppendMethod::kUnsupported},
      {.name = "WebGpuExecutionProvider",
       .aliases = {"webgpu"},
       .devices = {kGpu},
       .provider_option_keys = {"deviceId", "webgpuInstance", "preferredLayout", "enableGraphCapture",
                                "storageBufferCacheMode", "validationMode"},
       .append_method = AppendMethod::kByName,
       .append_name = "WebGPU",
       // Dawn's only back end on Linux is Vulkan; Debian 12's own Mesa (22.3) is older than Dawn accepts.
       .unusable_hint = "WebGPU runs on Vulkan on Linux: install your GPU's Vulkan driver, or Mesa's software "
                        "one (lavapipe, Mesa 23 or later: mesa-vulkan-drivers from bookworm-backports on Debian 12)"},
      {.name = std::string(kCpuEpName), .aliases = {"cpu"}, .devices = {kCpu}, .append_method = AppendMethod::kNone},
      {.name = "VitisAIExecutionProvider",
       .aliases = {"vitisai"},
       .devices = {kNpu},
       .ep_context = true,
       .device_type_option = true,
       .provider_option_keys = {"device_type", "target", "xclbin", "xlnx_enable_py3_round", "cache_dir", "cache_key",
                                "config_file"},
       .append_method = AppendMethod::kByName,
       .append_name = "VitisAI"},
  };
  return catalog;
}
#pragma GCC diagnostic pop

}  // namespace modelkit::device
