#include "modelkit/compile/compile_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/bundle/genai_config.h"

namespace modelkit::compile {
namespace {

namespace fs = std::filesystem;

// Modification time in nanoseconds since the Unix epoch; 0 when the file cannot be stat'ed.
int64_t UnixMtimeNs(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return 0;
  return static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

int64_t UnixNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "123", "64K", "1.5G" -> bytes; nullopt for anything else.
std::optional<uint64_t> ParseByteSize(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || value < 0) return std::nullopt;
  const std::string suffix(end, text.data() + text.size());
  static const std::pair<const char*, int> kUnits[] = {{"", 0}, {"K", 10}, {"M", 20}, {"G", 30}, {"T", 40}};
  for (const auto& [unit, shift] : kUnits) {
    if (suffix == unit) {
      const double bytes = value * static_cast<double>(uint64_t{1} << shift);
      if (bytes > 1.8e19) return std::nullopt;
      return static_cast<uint64_t>(bytes);
    }
  }
  return std::nullopt;
}

std::optional<CacheEntry> ReadEntry(const fs::path& derived_dir, const std::string& artifact) {
  std::error_code ec;
  const fs::path artifact_path = derived_dir / artifact;
  const fs::path record_path = derived_dir / (artifact + kRecordSuffix);
  if (!fs::is_regular_file(artifact_path, ec) || !fs::is_regular_file(record_path, ec)) return std::nullopt;
  std::optional<CompileIdentity> identity;
  try {
    identity = FromJson(nlohmann::json::parse(ReadTextFile(record_path, "compile cache record")));
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: not an entry (a rewrite drops it)
  }
  if (!identity) return std::nullopt;
  CacheEntry entry;
  entry.artifact = artifact;
  entry.stage = identity->stage;
  entry.identity = std::move(*identity);
  entry.bytes = fs::file_size(artifact_path, ec) + fs::file_size(record_path, ec);
  entry.compiled_unix_ns = UnixMtimeNs(artifact_path);
  entry.last_used_unix_ns = UnixMtimeNs(record_path);
  return entry;
}

}  // namespace

CachePolicy CachePolicy::FromEnvironment() {
  CachePolicy policy;
  if (const char* size = std::getenv("MODELKIT_COMPILE_CACHE_MAX_SIZE"); size != nullptr) {
    const std::optional<uint64_t> bytes = ParseByteSize(size);
    if (!bytes) {
      throw UsageError("MODELKIT_COMPILE_CACHE_MAX_SIZE='" + std::string(size) +
                       "' is not a size: give bytes with an optional K, M, G or T suffix (e.g. 20G)");
    }
    policy.max_bytes = *bytes;
  }
  if (const char* age = std::getenv("MODELKIT_COMPILE_CACHE_MAX_AGE_DAYS"); age != nullptr) {
    const std::string text(age);
    int days = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), days);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || days < 0 || days > 36500) {
      throw UsageError("MODELKIT_COMPILE_CACHE_MAX_AGE_DAYS='" + text +
                       "' is not a number of days: give a whole number from 0 to 36500");
    }
    policy.max_unused_age = std::chrono::hours(24 * days);
  }
  return policy;
}

std::vector<CacheEntry> ListCacheEntries(const fs::path& derived_dir) {
  std::vector<CacheEntry> entries;
  std::error_code ec;
  const std::string suffix = kRecordSuffix;
  for (const fs::directory_entry& file : fs::directory_iterator(derived_dir, ec)) {
    const std::string name = file.path().filename().string();
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    if (std::optional<CacheEntry> entry = ReadEntry(derived_dir, name.substr(0, name.size() - suffix.size()))) {
      entries.push_back(std::move(*entry));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const CacheEntry& a, const CacheEntry& b) { return a.artifact < b.artifact; });
  return entries;
}

std::vector<CacheEntry> EntriesToKeep(std::vector<CacheEntry> entries, uint64_t in_use_bytes, const CachePolicy& policy,
                                      int64_t now_unix_ns) {
  const int64_t max_age_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(policy.max_unused_age).count();
  std::stable_sort(entries.begin(), entries.end(),
                   [](const CacheEntry& a, const CacheEntry& b) { return a.last_used_unix_ns > b.last_used_unix_ns; });
  std::vector<CacheEntry> kept;
  uint64_t total = in_use_bytes;
  for (CacheEntry& entry : entries) {
    if (now_unix_ns - entry.last_used_unix_ns > max_age_ns) continue;
    if (total + entry.bytes > policy.max_bytes) continue;
    total += entry.bytes;
    kept.push_back(std::move(entry));
  }
  return kept;
}

std::vector<CacheEntry> CarryCacheEntries(const fs::path& bundle_dir, bundle::DerivedBundleContents& contents,
                                          const CachePolicy& policy) {
  const fs::path current = bundle_dir / bundle::kDerivedDirName;
  std::error_code ec;
  uint64_t in_use_bytes = 0;
  for (const auto& [name, source] : contents.artifacts) in_use_bytes += fs::file_size(source, ec);
  std::vector<CacheEntry> candidates;
  for (CacheEntry& entry : ListCacheEntries(current)) {
    if (contents.artifacts.count(entry.artifact) == 0) candidates.push_back(std::move(entry));
  }
  std::vector<CacheEntry> kept = EntriesToKeep(candidates, in_use_bytes, policy, UnixNowNs());
  std::set<std::string> kept_names;
  for (const CacheEntry& entry : kept) {
    contents.artifacts[entry.artifact] = current / entry.artifact;
    contents.artifacts[entry.record()] = current / entry.record();
    kept_names.insert(entry.artifact);
  }
  std::vector<CacheEntry> dropped;
  for (CacheEntry& entry : candidates) {
    if (kept_names.count(entry.artifact) == 0) dropped.push_back(std::move(entry));
  }
  return dropped;
}

void MarkUsed(const fs::path& record_path) {
  // Both times to now; a failure (a read-only bundle) only makes the entry look older to the eviction policy.
  ::utimensat(AT_FDCWD, record_path.c_str(), nullptr, 0);
}

std::set<std::string> ArtifactsInUse(const fs::path& bundle_dir) {
  std::set<std::string> names;
  const fs::path config_path = bundle_dir / bundle::kDerivedDirName / "genai_config.json";
  std::error_code ec;
  if (!fs::is_regular_file(config_path, ec)) return names;
  try {
    const bundle::Json config = bundle::Json::parse(ReadTextFile(config_path, "derived genai config"));
    bundle::ForEachPipelineStage(config, [&](const std::string&, const bundle::Json& stage) {
      if (stage.contains("filename") && stage.at("filename").is_string()) {
        names.insert(stage.at("filename").get<std::string>());
      }
    });
  } catch (const std::exception&) {
    // A derived config that cannot be read is never loaded: the next run rewrites it.
  }
  return names;
}

uint64_t RemoveCacheEntries(const fs::path& bundle_dir, const std::vector<CacheEntry>& entries) {
  const fs::path derived = bundle_dir / bundle::kDerivedDirName;
  const std::set<std::string> in_use = ArtifactsInUse(bundle_dir);
  std::error_code ec;
  for (const CacheEntry& entry : entries) {
    if (in_use.count(entry.artifact) != 0) {
      fs::remove(derived / bundle::kCompleteMarker, ec);
      break;
    }
  }
  uint64_t freed = 0;
  for (const CacheEntry& entry : entries) {
    const bool removed = fs::remove(derived / entry.record(), ec);
    fs::remove(derived / entry.artifact, ec);
    if (removed) freed += entry.bytes;
  }
  return freed;
}

}  // namespace modelkit::compile
