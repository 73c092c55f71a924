// The EP catalog: the single source of truth about execution providers (names, aliases, devices, capabilities).
// User input is normalised through it at the boundary; everything inside passes EpRow pointers, never raw names.
#pragma once

#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modelkit/device/device_kind.h"
#include "modelkit/ort/append_method.h"

namespace modelkit::device {

inline constexpr std::string_view kCpuEpName = "CPUExecutionProvider";

// The sentence EP errors end with, pointing the user to the command that lists this machine's EPs.
inline constexpr std::string_view kListEpHint = " Run 'modelkit sys --list-ep' to see what this machine has.";

// One execution provider.
struct EpRow {
  std::string name;                               // canonical ORT name, e.g. "QNNExecutionProvider"
  std::vector<std::string> aliases;               // lower-case; the first is written into configs and file names
  std::vector<DeviceKind> devices;                // supported devices, primary first; never empty
  bool ep_context = false;                        // has an offline EPContext compile step
  bool device_type_option = false;                // a `device_type` provider option selects the device
  bool needs_explicit_options = false;            // runs poorly or not at all without options (QNN: backend_path)
  std::vector<std::string> provider_option_keys;  // option keys it is known to take
  ort::AppendMethod append_method = ort::AppendMethod::kUnsupported;  // for built-ins
  std::string append_name;                                            // spelling for AppendMethod::kByName ("WebGPU")
  // What a user can do when the EP cannot run here, added to ORT's reason (empty: nothing general to say).
  std::string unusable_hint;
  // Plugin rows only: the library that provides the EP and the name it was registered under.
  std::optional<std::filesystem::path> plugin_library;
  std::string registration_name;

  bool IsPlugin() const { return plugin_library.has_value(); }
  // The CPU EP: always present, the fallback of every session, never an override target worth re-routing to.
  bool IsCpu() const { return name == kCpuEpName; }
  // Short lower-case name: the first alias, or the lower-cased canonical name when there is none.
  std::string Alias() const;
  DeviceKind PrimaryDevice() const { return devices.front(); }
  bool Supports(DeviceKind device) const;
};

class EpCatalog {
 public:
  // The built-in rows, in priority order (this order derives every per-device priority list).
  static EpCatalog BuiltIn();

  // Appends a plugin row after every existing row. Throws UsageError when its name or one of its aliases is
  // already taken by another row (naming `origin`, e.g. "--ep-library SimNpu=/x/libsim.so").
  void AddPluginRow(EpRow row, std::string_view origin);

  // Looks a name up case-insensitively among canonical names and aliases, then (for spellings configs use, e.g.
  // "QNNExecutionProvider" written as "QnnExecutionProvider" or "WebGPUExecutionProvider") with an
  // "ExecutionProvider" suffix removed; nullptr when no row knows it.
  const EpRow* Find(std::string_view name_or_alias) const;

  // Normalises a user's EP spelling (--ep: canonical name or alias, any case) to its row. Throws UsageError listing
  // the valid spellings when no row knows it.
  const EpRow& Normalize(std::string_view ep) const;

  // Rows supporting `device`, in catalog order.
  std::vector<const EpRow*> PriorityList(DeviceKind device) const;

  const std::deque<EpRow>& rows() const { return rows_; }

  // Sorted canonical names, and sorted aliases, for error messages.
  std::vector<std::string> CanonicalNames() const;
  std::vector<std::string> AllAliases() const;

 private:
  std::deque<EpRow> rows_;  // deque: row addresses stay valid as plugin rows are appended
};

}  // namespace modelkit::device
