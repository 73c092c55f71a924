// The EP override: rewrites a bundle config so its decoder stages run on a requested EP (upstream winml-cli §2.4,
// with product.md's differences), and judges whether an override took effect (§2.5). Pure functions over JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "modelkit/bundle/genai_config.h"
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
// Provider keys are matched through the catalog (aliases, full names, og spellings, any case).
OverrideResult ApplyEpOverride(const Json& config, const device::EpRow* ep,
                               std::optional<device::DeviceKind> session_device, const device::EpCatalog& catalog);

// The first provider key (as spelled in the config) that is not CPU, scanning model.decoder.session_options first,
// then pipeline stages; nullopt when everything runs on CPU. DML and every other non-CPU EP count as hardware.
std::optional<std::string> BundleUsesHardwareEp(const Json& config);

// Whether a requested override shows in the effective config: CPU when no hardware provider remains anywhere; a
// hardware EP when some pipeline stage names it. False without an override.
bool OverrideTookEffect(const Json& effective_config, const device::EpRow* ep, const device::EpCatalog& catalog);

// The label reports print: the alias of an override that took effect, else "config".
std::string EffectiveEpLabel(const Json& effective_config, const device::EpRow* ep, const device::EpCatalog& catalog);

// The device an override's options are synthesised for: an explicit npu/gpu/cpu as given; "auto" as resolved
// (product.md: a GPU served by a multi-device EP gets GPU, not the EP's primary device); "config" or nothing: the
// EP's primary device. nullopt without an EP.
std::optional<device::DeviceKind> SessionDevice(const device::EpRow* ep, const std::string& requested_device,
                                                std::optional<device::DeviceKind> resolved_device);

}  // namespace modelkit::bundle
