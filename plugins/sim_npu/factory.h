// The OrtEpFactory of the simulated NPU: offers one virtual NPU hardware device (never the CPU) with an OrtEpDevice
// on it, and creates SimNpuEp instances for sessions. One factory per registration; the registration name sets the
// EP name, so one library registered twice gives two independent EPs.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "api.h"

namespace sim_npu {

inline constexpr const char* kVersion = "1.0.0";
inline constexpr const char* kVendor = "modelkit";
inline constexpr uint32_t kVendorId = 0x4D4B;  // "MK": not a PCI vendor

class SimNpuFactory : public OrtEpFactory {
 public:
  explicit SimNpuFactory(std::string ep_name);
  ~SimNpuFactory();
  SimNpuFactory(const SimNpuFactory&) = delete;
  SimNpuFactory& operator=(const SimNpuFactory&) = delete;

  const std::string& ep_name() const { return ep_name_; }

  // The application's environment, for the inner CPU sessions. CreateEnv inside a plugin returns the env that loaded
  // it; the reference is held until the factory is released.
  Ort::Env& InnerEnv();

 private:
  static const char* ORT_API_CALL GetNameImpl(const OrtEpFactory* self) noexcept;
  static const char* ORT_API_CALL GetVendorImpl(const OrtEpFactory* self) noexcept;
  static uint32_t ORT_API_CALL GetVendorIdImpl(const OrtEpFactory* self) noexcept;
  static const char* ORT_API_CALL GetVersionImpl(const OrtEpFactory* self) noexcept;
  static OrtStatus* ORT_API_CALL GetSupportedDevicesImpl(OrtEpFactory* self, const OrtHardwareDevice* const* devices,
                                                         size_t num_devices, OrtEpDevice** ep_devices,
                                                         size_t max_ep_devices, size_t* num_ep_devices) noexcept;
  static OrtStatus* ORT_API_CALL CreateEpImpl(OrtEpFactory* self, const OrtHardwareDevice* const* devices,
                                              const OrtKeyValuePairs* const* ep_metadata, size_t num_devices,
                                              const OrtSessionOptions* session_options, const OrtLogger* logger,
                                              OrtEp** ep) noexcept;
  static void ORT_API_CALL ReleaseEpImpl(OrtEpFactory* self, OrtEp* ep) noexcept;
  static OrtStatus* ORT_API_CALL ValidateCompiledModelCompatibilityInfoImpl(
      OrtEpFactory* self, const OrtHardwareDevice* const* devices, size_t num_devices, const char* compatibility_info,
      OrtCompiledModelCompatibility* compatibility) noexcept;
  static OrtStatus* ORT_API_CALL CreateAllocatorImpl(OrtEpFactory* self, const OrtMemoryInfo* memory_info,
                                                     const OrtKeyValuePairs* options,
                                                     OrtAllocator** allocator) noexcept;
  static void ORT_API_CALL ReleaseAllocatorImpl(OrtEpFactory* self, OrtAllocator* allocator) noexcept;
  static OrtStatus* ORT_API_CALL CreateDataTransferImpl(OrtEpFactory* self,
                                                        OrtDataTransferImpl** data_transfer) noexcept;
  static bool ORT_API_CALL IsStreamAwareImpl(const OrtEpFactory* self) noexcept;
  static OrtStatus* ORT_API_CALL CreateSyncStreamForDeviceImpl(OrtEpFactory* self, const OrtMemoryDevice* device,
                                                               const OrtKeyValuePairs* options,
                                                               OrtSyncStreamImpl** stream) noexcept;

  std::string ep_name_;
  OrtHardwareDevice* npu_device_ = nullptr;  // the virtual NPU, created on the first GetSupportedDevices
  std::mutex env_mutex_;
  std::optional<Ort::Env> inner_env_;
};

}  // namespace sim_npu
