#include "modelkit/bundle/ep_override.h"

#include "modelkit/base/strings.h"

namespace modelkit::bundle {
namespace {

using device::EpCatalog;
using device::EpRow;

// A provider key naming the CPU EP. Keys the catalog does not know count as hardware.
bool IsCpuKey(const std::string& key, const EpCatalog& catalog) {
  const EpRow* row = catalog.Find(key);
  return row != nullptr && row->IsCpu();
}

// Calls visit(key, options) for every provider entry of a provider_options list (entries are single-key objects).
template <typename Visit>
void ForEachProvider(const Json& providers, const Visit& visit) {
  for (const Json& entry : providers) {
    if (!entry.is_object()) continue;
    for (auto it = entry.begin(); it != entry.end(); ++it) visit(it.key(), it.value());
  }
}

bool NamesHardware(const Json* providers, const EpCatalog& catalog) {
  bool hardware = false;
  if (providers != nullptr) {
    ForEachProvider(*providers, [&](const std::string& key, const Json&) { hardware |= !IsCpuKey(key, catalog); });
  }
  return hardware;
}

bool NamesEp(const Json* providers, const EpRow& ep, const EpCatalog& catalog) {
  bool names = false;
  if (providers != nullptr) {
    ForEachProvider(*providers, [&](const std::string& key, const Json&) { names |= catalog.Find(key) == &ep; });
  }
  return names;
}

// The stage's own options for `ep`, if it names it.
std::optional<Json> OwnOptions(const Json* providers, const EpRow& ep, const EpCatalog& catalog) {
  std::optional<Json> own;
  if (providers != nullptr) {
    ForEachProvider(*providers, [&](const std::string& key, const Json& options) {
      if (!own && catalog.Find(key) == &ep) own = options;
    });
  }
  return own;
}

}  // namespace

OverrideResult ApplyEpOverride(const Json& config, const EpRow* ep, std::optional<device::DeviceKind> session_device,
                               const EpCatalog& catalog) {
  OverrideResult result{config, false, {}};
  if (ep == nullptr) return result;
  const bool to_cpu = ep->IsCpu();

  std::optional<Json> borrowed;
  ForEachPipelineStage(config, [&](const std::string&, const Json& stage) {
    if (borrowed) return;
    const std::optional<Json> own = OwnOptions(ProviderOptionsOf(stage), *ep, catalog);
    if (own && own->is_object() && !own->empty()) borrowed = own;
  });

  bool warned = false;
  ForEachPipelineStage(result.config, [&](const std::string& stage_name, Json& stage) {
    const Json* providers = ProviderOptionsOf(stage);
    if (!NamesHardware(providers, catalog)) return;  // CPU stages (embeddings, lm_head) are never re-routed
    Json& slot = stage["session_options"]["provider_options"];
    if (to_cpu) {
      slot = Json::array();
      return;
    }
    Json options = Json::object();
    if (std::optional<Json> own = OwnOptions(providers, *ep, catalog)) {
      options = *own;
    } else if (borrowed) {
      options = *borrowed;
    } else if (ep->device_type_option) {
      const device::DeviceKind kind = session_device.value_or(ep->PrimaryDevice());
      options["device_type"] = std::string(device::DeviceTypeOptionValue(kind));
    } else if (ep->needs_explicit_options && !warned) {
      result.warnings.push_back("empty " + ep->Alias() + " options for stage '" + stage_name +
                                "': the bundle gives no " + ep->name +
                                " options to reuse, so the EP runs with its defaults");
      warned = true;
    }
    slot = Json::array({Json::object({{ep->Alias(), options}})});
  });
  result.changed = result.config != config;
  return result;
}

std::optional<std::string> BundleUsesHardwareEp(const Json& config, const EpCatalog& catalog) {
  std::optional<std::string> found;
  auto scan = [&](const Json* providers) {
    if (found || providers == nullptr) return;
    ForEachProvider(*providers, [&](const std::string& key, const Json&) {
      if (!found && !IsCpuKey(key, catalog)) found = key;
    });
  };
  if (const Json* decoder = DecoderOf(config)) scan(ProviderOptionsOf(*decoder));
  ForEachPipelineStage(config, [&](const std::string&, const Json& stage) { scan(ProviderOptionsOf(stage)); });
  return found;
}

bool OverrideTookEffect(const Json& effective_config, const EpRow* ep, const EpCatalog& catalog) {
  if (ep == nullptr) return false;
  if (ep->IsCpu()) return !BundleUsesHardwareEp(effective_config, catalog).has_value();
  bool routed = false;
  ForEachPipelineStage(effective_config, [&](const std::string&, const Json& stage) {
    routed |= NamesEp(ProviderOptionsOf(stage), *ep, catalog);
  });
  return routed;
}

device::EffectiveEp EffectiveEpOf(const Json& effective_config, const EpRow* ep, const EpCatalog& catalog) {
  if (!OverrideTookEffect(effective_config, ep, catalog)) return {};
  return {ep->Alias()};
}

std::optional<device::DeviceKind> SessionDevice(const EpRow* ep, device::DeviceRequest requested_device,
                                                std::optional<device::DeviceKind> resolved_device) {
  if (ep == nullptr) return std::nullopt;
  if (const std::optional<device::DeviceKind> explicit_device = requested_device.kind()) return explicit_device;
  if (requested_device.is_auto() && resolved_device && ep->Supports(*resolved_device)) return resolved_device;
  return ep->PrimaryDevice();
}

}  // namespace modelkit::bundle
