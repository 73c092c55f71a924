#include "modelkit/device/inventory.h"

namespace modelkit::device {

const EpStatus* Inventory::FindEp(std::string_view ep_name) const {
  for (const EpStatus& ep : eps) {
    if (ep.name == ep_name) return &ep;
  }
  return nullptr;
}

}  // namespace modelkit::device
