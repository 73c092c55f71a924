#include "api.h"

namespace sim_npu {
namespace {
const OrtApi* g_api = nullptr;
const OrtEpApi* g_ep_api = nullptr;
}  // namespace

bool InitApis(const OrtApiBase* api_base) {
  if (g_api != nullptr) return true;
  const OrtApi* api = api_base->GetApi(kApiVersion);
  if (api == nullptr) return false;
  Ort::InitApi(api);
  g_ep_api = api->GetEpApi();
  g_api = api;
  return g_ep_api != nullptr;
}

const OrtApi& OrtApiTable() { return *g_api; }
const OrtEpApi& EpApi() { return *g_ep_api; }

OrtStatus* MakeStatus(OrtErrorCode code, const std::string& message) {
  return g_api->CreateStatus(code, message.c_str());
}

}  // namespace sim_npu
