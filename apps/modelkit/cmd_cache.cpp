// `modelkit cache`: what a bundle's compile cache (`<bundle>/_compiled/`, compile_cache.h) holds, per EP and stage,
// whether each entry could still be used, and removing entries. Removal takes the bundle's lock, so it never races a
// run that is compiling into, or loading from, the same cache.
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "ep_flags.h"
#include "flag_checks.h"
#include "modelkit/base/error.h"
#include "modelkit/base/strings.h"
#include "modelkit/base/text_table.h"
#include "modelkit/bundle/derived_bundle.h"
#include "modelkit/bundle/genai_config.h"
#include "modelkit/compile/compile_cache.h"
#include "modelkit/compile/stage_compile.h"
#include "modelkit/ort/runtime.h"
#include "modelkit/session/machine_access.h"

namespace modelkit::app {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct CacheOptions {
  std::string bundle;
  std::string format = "text";
  std::string ep;     // remove: only this EP's entries
  std::string stage;  // remove: only this stage's entries
  EpLibraryFlags ep_flags;
};

std::string UtcText(int64_t unix_ns) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string SizeText(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  } else if (bytes >= (uint64_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024);
  }
  return text;
}

std::string OptionsText(const std::map<std::string, std::string>& options) {
  std::vector<std::string> pairs;
  for (const auto& [key, value] : options) pairs.push_back(key + "=" + value);
  return pairs.empty() ? "-" : Join(pairs, ",");
}

// Why `entry` could not serve a run now ("" when it could): its sources, ORT and the EP library as they are here.
std::string StaleReasonNow(const fs::path& bundle, const compile::CacheEntry& entry, const device::EpCatalog& catalog) {
  const device::EpRow* row = catalog.Find(entry.identity.ep);
  if (row == nullptr) return "EP " + entry.identity.ep + " is not known here";
  std::vector<std::string> sources;
  for (const compile::SourceIdentity& source : entry.identity.sources) sources.push_back(source.name);
  return compile::StaleReason(entry.identity, bundle, sources, row->name, entry.identity.provider_options,
                              ort::RuntimeVersion(), compile::EpLibraryVersion(*row))
      .value_or("");
}

std::string AliasOf(const std::string& ep, const device::EpCatalog& catalog) {
  const device::EpRow* row = catalog.Find(ep);
  return row != nullptr ? row->Alias() : ep;
}

int RunList(const CacheOptions& options) {
  const fs::path bundle = options.bundle;
  bundle::RequireBundleDirectory(bundle, "-m");
  session::PluginMachineAccess machine(options.ep_flags.Plugins());
  const device::EpCatalog& catalog = machine.Catalog();
  const compile::CachePolicy policy = compile::CachePolicy::FromEnvironment();
  const std::vector<compile::CacheEntry> entries = compile::ListCacheEntries(bundle / bundle::kDerivedDirName);
  const std::set<std::string> in_use = compile::ArtifactsInUse(bundle);
  uint64_t total = 0;
  for (const compile::CacheEntry& entry : entries) total += entry.bytes;
  const int64_t max_age_days = policy.max_unused_age.count() / 24;

  if (options.format == "json") {
    Json list = Json::array();
    for (const compile::CacheEntry& entry : entries) {
      const std::string stale = StaleReasonNow(bundle, entry, catalog);
      list.push_back({{"stage", entry.stage},
                      {"ep", AliasOf(entry.identity.ep, catalog)},
                      {"ep_name", entry.identity.ep},
                      {"provider_options", entry.identity.provider_options},
                      {"artifact", entry.artifact},
                      {"bytes", entry.bytes},
                      {"compiled_at", UtcText(entry.compiled_unix_ns)},
                      {"last_used_at", UtcText(entry.last_used_unix_ns)},
                      {"in_use", in_use.count(entry.artifact) > 0},
                      {"valid", stale.empty()},
                      {"stale_reason", stale.empty() ? Json(nullptr) : Json(stale)}});
    }
    const Json report = {{"bundle", options.bundle},
                         {"cache_dir", (bundle / bundle::kDerivedDirName).string()},
                         {"total_bytes", total},
                         {"policy", {{"max_bytes", policy.max_bytes}, {"max_unused_days", max_age_days}}},
                         {"entries", list}};
    std::cout << report.dump(2) << "\n";
    return 0;
  }
  std::cout << "Compile cache of " << options.bundle << ": " << entries.size() << " artifact(s), " << SizeText(total)
            << " (limit " << SizeText(policy.max_bytes) << "; entries unused for " << max_age_days
            << " days are removed)\n";
  if (entries.empty()) return 0;
  TextTable table({"Stage", "EP", "Options", "Size", "Compiled (UTC)", "Last used (UTC)", "In use", "Valid"});
  for (const compile::CacheEntry& entry : entries) {
    const std::string stale = StaleReasonNow(bundle, entry, catalog);
    table.AddRow({entry.stage.empty() ? "?" : entry.stage, AliasOf(entry.identity.ep, catalog),
                  OptionsText(entry.identity.provider_options), SizeText(entry.bytes), UtcText(entry.compiled_unix_ns),
                  UtcText(entry.last_used_unix_ns), in_use.count(entry.artifact) > 0 ? "yes" : "no",
                  stale.empty() ? "yes" : "no: " + stale});
  }
  std::cout << table.Render();
  return 0;
}

int RunRemove(const CacheOptions& options) {
  const fs::path bundle = options.bundle;
  bundle::RequireBundleDirectory(bundle, "-m");
  session::PluginMachineAccess machine(options.ep_flags.Plugins());
  const device::EpRow* ep = options.ep.empty() ? nullptr : &machine.Catalog().Normalize(options.ep);
  const bundle::BundleLock lock(bundle);
  std::vector<compile::CacheEntry> removed;
  for (compile::CacheEntry& entry : compile::ListCacheEntries(bundle / bundle::kDerivedDirName)) {
    if (ep != nullptr && !EqualsIgnoreCase(entry.identity.ep, ep->name)) continue;
    if (!options.stage.empty() && entry.stage != options.stage) continue;
    removed.push_back(std::move(entry));
  }
  const uint64_t freed = compile::RemoveCacheEntries(bundle, removed);
  std::cout << "Removed " << removed.size() << " cached artifact(s) from " << options.bundle << ", " << SizeText(freed)
            << " freed\n";
  return 0;
}

}  // namespace

void RegisterCacheCommand(CLI::App& app, CommandRunner& run) {
  auto options = std::make_shared<CacheOptions>();
  CLI::App* command = app.add_subcommand("cache", "Show or remove what a bundle's compile cache holds");
  command->require_subcommand(1);
  CLI::App* list = command->add_subcommand("list", "List the compiled artifacts cached for a bundle");
  list->add_option("-m,--model", options->bundle, "Bundle directory (holding genai_config.json)")->required();
  list->add_option("-f,--format", options->format, "Output format")
      ->transform(CLI::IsMember({"text", "json"}, CLI::ignore_case))
      ->capture_default_str();
  options->ep_flags.Bind(*list);
  list->callback([options, &run] { run = [options] { return RunList(*options); }; });

  CLI::App* remove = command->add_subcommand("remove", "Remove cached artifacts of a bundle (all, or those chosen)");
  remove->add_option("-m,--model", options->bundle, "Bundle directory (holding genai_config.json)")->required();
  remove->add_option("--ep", options->ep, "Only the artifacts compiled for this EP (alias or full name)")
      ->check(NonEmpty());
  remove->add_option("--stage", options->stage, "Only the artifacts of this pipeline stage")->check(NonEmpty());
  options->ep_flags.Bind(*remove);
  remove->callback([options, &run] { run = [options] { return RunRemove(*options); }; });
}

}  // namespace modelkit::app
