// The compile cache of a bundle: the EPContext artifacts `<bundle>/_compiled/` holds, each with its cache record
// `<artifact>.meta.json` (compile::CompileIdentity), for every EP and provider-option set a run compiled for. What a
// run loads is chosen by its effective config only; the other entries are carried into every rewrite of
// `_compiled/`, so switching EPs back and forth, or a run on the CPU in between, never recompiles. The cache is
// bounded per bundle by a CachePolicy (docs/genai-session.md): entries no run used within the age limit go first,
// then the least recently used until the total fits the size limit; what the current run uses is always kept.
// Listing and removal (`modelkit cache`) go through here too. Callers that change `_compiled/` hold the BundleLock.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "modelkit/bundle/derived_bundle.h"
#include "modelkit/compile/cache_identity.h"

namespace modelkit::compile {

// A cache record's name is its artifact's name plus this suffix.
inline constexpr const char* kRecordSuffix = ".meta.json";

struct CacheEntry {
  std::string artifact;  // file name in _compiled/
  std::string stage;     // the pipeline stage it was compiled from
  CompileIdentity identity;
  uint64_t bytes = 0;             // artifact and record
  int64_t compiled_unix_ns = 0;   // the artifact's modification time
  int64_t last_used_unix_ns = 0;  // the record's modification time, renewed by every run that loads the artifact

  std::string record() const { return artifact + kRecordSuffix; }
};

struct CachePolicy {
  uint64_t max_bytes = uint64_t{16} << 30;     // per bundle
  std::chrono::hours max_unused_age{24 * 30};  // 30 days

  // The defaults, overridden by MODELKIT_COMPILE_CACHE_MAX_SIZE (bytes, with an optional K/M/G/T suffix, powers
  // of 1024) and MODELKIT_COMPILE_CACHE_MAX_AGE_DAYS (a whole number of days). Throws UsageError naming the
  // variable for a value that is not one of those.
  static CachePolicy FromEnvironment();
};

// The complete entries of the cache in `derived_dir` (an artifact with a readable record of this version), by
// artifact name. An artifact without its record, or a record without its artifact, is not an entry.
std::vector<CacheEntry> ListCacheEntries(const std::filesystem::path& derived_dir);

// Which of `entries` (none of them used by the current run) a rewrite keeps beside the ones in use, whose bytes
// are `in_use_bytes`: entries unused for longer than the age limit are dropped, then the most recently used are kept
// while the total stays within the size limit. Pure: `now_unix_ns` is the current time.
std::vector<CacheEntry> EntriesToKeep(std::vector<CacheEntry> entries, uint64_t in_use_bytes, const CachePolicy& policy,
                                      int64_t now_unix_ns);

// Adds to `contents.artifacts` the entries of the current `<bundle>/_compiled/` that this rewrite does not already
// carry and that `policy` keeps (artifact and record, hard-linked from the current tree). Returns what it dropped.
std::vector<CacheEntry> CarryCacheEntries(const std::filesystem::path& bundle_dir,
                                          bundle::DerivedBundleContents& contents, const CachePolicy& policy);

// Records that a run loads the artifact whose record is `record_path` (its modification time becomes now).
void MarkUsed(const std::filesystem::path& record_path);

// Removes `entries` from `<bundle>/_compiled/` in place: when the derived config loads one of them, the completion
// marker goes first (the next run then rebuilds the tree, never trusting one that names a missing file), then each
// record before its artifact. Returns the bytes freed. The caller holds the BundleLock.
uint64_t RemoveCacheEntries(const std::filesystem::path& bundle_dir, const std::vector<CacheEntry>& entries);

// The artifact names the derived config `<bundle>/_compiled/genai_config.json` loads (empty when there is none).
std::set<std::string> ArtifactsInUse(const std::filesystem::path& bundle_dir);

}  // namespace modelkit::compile
