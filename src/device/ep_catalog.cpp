#include "modelkit/device/ep_catalog.h"

#include <algorithm>

#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"

namespace modelkit::device {

std::string EpRow::Alias() const { return aliases.empty() ? ToLower(name) : aliases.front(); }

bool EpRow::Supports(DeviceKind device) const {
  return std::find(devices.begin(), devices.end(), device) != devices.end();
}

void EpCatalog::AddPluginRow(EpRow row, std::string_view origin) {
  if (row.devices.empty()) {
    throw UsageError("plugin EP '" + row.name + "' (" + std::string(origin) + ") declares no devices");
  }
  for (std::string& alias : row.aliases) alias = ToLower(alias);
  std::vector<std::string> spellings = row.aliases;
  spellings.push_back(row.name);
  for (const std::string& spelling : spellings) {
    if (const EpRow* existing = Find(spelling)) {
      throw UsageError("plugin EP '" + row.name + "' (" + std::string(origin) + "): the name '" + spelling +
                       "' is already used by " + existing->name + "; give the plugin another name or alias");
    }
  }
  rows_.push_back(std::move(row));
}

namespace {

constexpr std::string_view kEpSuffix = "ExecutionProvider";

const EpRow* FindExact(const std::deque<EpRow>& rows, std::string_view name_or_alias) {
  for (const EpRow& row : rows) {
    if (EqualsIgnoreCase(row.name, name_or_alias)) return &row;
    for (const std::string& alias : row.aliases) {
      if (EqualsIgnoreCase(alias, name_or_alias)) return &row;
    }
  }
  return nullptr;
}

}  // namespace

const EpRow* EpCatalog::Find(std::string_view name_or_alias) const {
  if (const EpRow* row = FindExact(rows_, name_or_alias)) return row;
  if (name_or_alias.size() > kEpSuffix.size() &&
      EqualsIgnoreCase(name_or_alias.substr(name_or_alias.size() - kEpSuffix.size()), kEpSuffix)) {
    return FindExact(rows_, name_or_alias.substr(0, name_or_alias.size() - kEpSuffix.size()));
  }
  return nullptr;
}

const EpRow& EpCatalog::Normalize(std::string_view ep) const {
  if (const EpRow* row = Find(ep)) return *row;
  std::vector<std::string> known = AllAliases();
  for (const std::string& name : CanonicalNames()) known.push_back(name);
  throw UsageError("unknown execution provider '" + std::string(ep) + "' (--ep)" + DidYouMeanThenExpected(ep, known) +
                   ": " + Join(AllAliases(), ", ") + ", or a full name (" + Join(CanonicalNames(), ", ") + ")." +
                   std::string(kListEpHint));
}

std::vector<const EpRow*> EpCatalog::PriorityList(DeviceKind device) const {
  std::vector<const EpRow*> list;
  for (const EpRow& row : rows_) {
    if (row.Supports(device)) list.push_back(&row);
  }
  return list;
}

std::vector<std::string> EpCatalog::CanonicalNames() const {
  std::vector<std::string> names;
  for (const EpRow& row : rows_) names.push_back(row.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> EpCatalog::AllAliases() const {
  std::vector<std::string> aliases;
  for (const EpRow& row : rows_) aliases.insert(aliases.end(), row.aliases.begin(), row.aliases.end());
  std::sort(aliases.begin(), aliases.end());
  return aliases;
}

}  // namespace modelkit::device
