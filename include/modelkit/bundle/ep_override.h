// The EP override: rewrites a bundle config so its decoder stages run on a requested EP, and judges whether an
// override took effect (docs/genai-session.md). Pure functions over JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "modelkit/bundle/genai_config.h"
#include "modelkit/device/device_request.h"
#include "modelkit/device/ep_catalog.h"

namespace modelkit::bundle {

struct OverrideResult {
  Json config;  // the rewritten copy (the input itself when no EP was requested)
  bool changed = false;
  std::vector<std::string> warnings;
};

// Rewrites pipeline stages' session_options.provider_options; model.decoder.session_options (flat layout) is
// never rewritten, and the input is never mutated.
//  - `ep` nullptr: the input unchanged.
//  - the CPU EP: every stage naming any non-CPU provider gets []; CPU stages stay byte-identical.
//  - a hardware EP T: only stages already on some non-CPU provider are re-routed, to [{alias(T): options}], where
//    options = the stage's own options for T (verbatim, even {}), else the first non-empty options any stage has for
//    T (borrowed), else {"device_type": <DEVICE>} for device-parameterised EPs (session device, else T's primary),
//    else {} (with an "empty <EP> options" warning for EPs that need options, e.g. QNN).
// Provider keys are matched through the catalog (aliases, full names, any case).
OverrideResult ApplyEpOverride(const Json& config, const device::EpRow* ep,
                               std::optional<device::DeviceKind> session_device, const device::EpCatalog& catalog);

// The first provider key (as spelled in the config) that is not CPU, scanning model.decoder.session_options first,
// then pipeline stages; nullopt when everything runs on CPU. DML, every other non-CPU EP and keys the catalog does
// not know count as hardware.
std::optional<std::string> BundleUsesHardwareEp(const Json& config, const device::EpCatalog& catalog);

// Whether a requested override shows in the effective config: CPU when no hardware provider remains anywhere; a
// hardware EP when some pipeline stage names it. False without an override.
bool OverrideTookEffect(const Json& effective_config, const device::EpRow* ep, const device::EpCatalog& catalog);

// The routing a run really used: the override's alias when it took effect, else the bundle's config.
device::EffectiveEp EffectiveEpOf(const Json& effective_config, const device::EpRow* ep,
                                  const device::EpCatalog& catalog);

// The device an override's options are synthesised for: an explicit npu/gpu/cpu as given; auto as resolved (so a
// GPU served by a multi-device EP gets GPU, not the EP's primary device); config: the EP's primary device. nullopt
// without an EP.
std::optional<device::DeviceKind> SessionDevice(const device::EpRow* ep, device::DeviceRequest requested_device,
                                                std::optional<device::DeviceKind> resolved_device);

}  // namespace modelkit::bundle
