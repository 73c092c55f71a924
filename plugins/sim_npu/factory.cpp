#include "factory.h"

#include <memory>

#include "compatibility.h"
#include "ep.h"
#include "options.h"

namespace sim_npu {
namespace {

SimNpuFactory& Self(OrtEpFactory* self) { return *static_cast<SimNpuFactory*>(self); }
const SimNpuFactory& Self(const OrtEpFactory* self) { return *static_cast<const SimNpuFactory*>(self); }

// A stable device id per EP name, so two registrations show two distinct NPUs.
uint32_t DeviceIdFor(const std::string& ep_name) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : ep_name) hash = (hash ^ c) * 16777619u;
  return hash & 0xFFFF;
}

}  // namespace

SimNpuFactory::SimNpuFactory(std::string ep_name) : OrtEpFactory{}, ep_name_(std::move(ep_name)) {
  ort_version_supported = ORT_API_VERSION;
  GetName = GetNameImpl;
  GetVendor = GetVendorImpl;
  GetVendorId = GetVendorIdImpl;
  GetVersion = GetVersionImpl;
  GetSupportedDevices = GetSupportedDevicesImpl;
  CreateEp = CreateEpImpl;
  ReleaseEp = ReleaseEpImpl;
  ValidateCompiledModelCompatibilityInfo = ValidateCompiledModelCompatibilityInfoImpl;
  CreateAllocator = CreateAllocatorImpl;
  ReleaseAllocator = ReleaseAllocatorImpl;
  CreateDataTransfer = CreateDataTransferImpl;
  IsStreamAware = IsStreamAwareImpl;
  CreateSyncStreamForDevice = CreateSyncStreamForDeviceImpl;
}

SimNpuFactory::~SimNpuFactory() {
  if (npu_device_ != nullptr) EpApi().ReleaseHardwareDevice(npu_device_);
}

Ort::Env& SimNpuFactory::InnerEnv() {
  std::lock_guard<std::mutex> lock(env_mutex_);
  if (!inner_env_) inner_env_.emplace(ORT_LOGGING_LEVEL_ERROR, "sim_npu");
  return *inner_env_;
}

const char* SimNpuFactory::GetNameImpl(const OrtEpFactory* self) noexcept { return Self(self).ep_name_.c_str(); }
const char* SimNpuFactory::GetVendorImpl(const OrtEpFactory*) noexcept { return kVendor; }
uint32_t SimNpuFactory::GetVendorIdImpl(const OrtEpFactory*) noexcept { return kVendorId; }
const char* SimNpuFactory::GetVersionImpl(const OrtEpFactory*) noexcept { return kVersion; }

// ORT's list of real devices is ignored: the simulated NPU runs on a virtual device of its own, and offering the CPU
// device too would get it selected even under PREFER_CPU.
OrtStatus* SimNpuFactory::GetSupportedDevicesImpl(OrtEpFactory* self, const OrtHardwareDevice* const*, size_t,
                                                  OrtEpDevice** ep_devices, size_t max_ep_devices,
                                                  size_t* num_ep_devices) noexcept {
  return Guard([&] {
    SimNpuFactory& factory = Self(self);
    *num_ep_devices = 0;
    if (max_ep_devices == 0) return;
    if (factory.npu_device_ == nullptr) {
      Ort::KeyValuePairs metadata;
      metadata.Add("Description", ("Simulated NPU (" + factory.ep_name_ + ")").c_str());
      Ort::ThrowOnError(EpApi().CreateHardwareDevice(OrtHardwareDeviceType_NPU, kVendorId,
                                                     DeviceIdFor(factory.ep_name_), kVendor, metadata,
                                                     &factory.npu_device_));
    }
    // ORT adds the version (from GetVersion) to the EP metadata itself and refuses metadata that sets it.
    OrtEpDevice* ep_device = nullptr;
    Ort::ThrowOnError(EpApi().CreateEpDevice(self, factory.npu_device_, nullptr, nullptr, &ep_device));
    ep_devices[0] = ep_device;
    *num_ep_devices = 1;
  });
}

OrtStatus* SimNpuFactory::CreateEpImpl(OrtEpFactory* self, const OrtHardwareDevice* const*,
                                       const OrtKeyValuePairs* const*, size_t, const OrtSessionOptions* session_options,
                                       const OrtLogger* logger, OrtEp** ep) noexcept {
  return Guard([&] {
    SimNpuFactory& factory = Self(self);
    SimNpuOptions options = ReadOptions(factory.ep_name_, Ort::ConstSessionOptions{session_options});
    *ep = new SimNpuEp(factory, std::move(options), logger);
  });
}

void SimNpuFactory::ReleaseEpImpl(OrtEpFactory*, OrtEp* ep) noexcept { delete static_cast<SimNpuEp*>(ep); }

OrtStatus* SimNpuFactory::ValidateCompiledModelCompatibilityInfoImpl(
    OrtEpFactory* self, const OrtHardwareDevice* const*, size_t, const char* compatibility_info,
    OrtCompiledModelCompatibility* compatibility) noexcept {
  switch (CheckCompatibility(compatibility_info == nullptr ? "" : compatibility_info, Self(self).ep_name_, kVersion)) {
    case Compatibility::kOptimal:
      *compatibility = OrtCompiledModelCompatibility_EP_SUPPORTED_OPTIMAL;
      break;
    case Compatibility::kPreferRecompilation:
      *compatibility = OrtCompiledModelCompatibility_EP_SUPPORTED_PREFER_RECOMPILATION;
      break;
    case Compatibility::kUnsupported:
      *compatibility = OrtCompiledModelCompatibility_EP_UNSUPPORTED;
      break;
  }
  return nullptr;
}

// Tensors live in ordinary CPU memory: no allocator, data transfer or stream of its own.
OrtStatus* SimNpuFactory::CreateAllocatorImpl(OrtEpFactory*, const OrtMemoryInfo*, const OrtKeyValuePairs*,
                                              OrtAllocator** allocator) noexcept {
  *allocator = nullptr;
  return nullptr;
}
void SimNpuFactory::ReleaseAllocatorImpl(OrtEpFactory*, OrtAllocator*) noexcept {}
OrtStatus* SimNpuFactory::CreateDataTransferImpl(OrtEpFactory*, OrtDataTransferImpl** data_transfer) noexcept {
  *data_transfer = nullptr;
  return nullptr;
}
bool SimNpuFactory::IsStreamAwareImpl(const OrtEpFactory*) noexcept { return false; }
OrtStatus* SimNpuFactory::CreateSyncStreamForDeviceImpl(OrtEpFactory*, const OrtMemoryDevice*, const OrtKeyValuePairs*,
                                                        OrtSyncStreamImpl** stream) noexcept {
  *stream = nullptr;
  return nullptr;
}

}  // namespace sim_npu
