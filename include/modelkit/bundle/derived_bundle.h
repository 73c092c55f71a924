// The derived bundle `<bundle>/_compiled/`: the rewritten genai_config.json, compiled stage artifacts, and every
// other top-level file of the bundle mirrored (a relative symlink `../<name>`, or a copy where links fail), so a
// loader reading `_compiled/` sees a complete bundle, and a moved or copied bundle never reads another's files. Unlike winml-cli's, it is never edited in place: each write builds a temporary
// sibling and swaps it in atomically, under an advisory lock on the bundle, so concurrent runs and a run killed
// half-way never leave a half-written `_compiled/` that a later run trusts, and stale entries disappear.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "modelkit/bundle/genai_config.h"

namespace modelkit::bundle {

inline constexpr const char* kDerivedDirName = "_compiled";
inline constexpr const char* kCompleteMarker = ".modelkit_bundle_complete";

// An exclusive advisory lock on a bundle (flock on <bundle>/.modelkit.lock), held for the object's lifetime.
// Blocks until the lock is free. Throws RuntimeError when the lock file cannot be created.
class BundleLock {
 public:
  explicit BundleLock(const std::filesystem::path& bundle_dir);
  ~BundleLock();
  BundleLock(const BundleLock&) = delete;
  BundleLock& operator=(const BundleLock&) = delete;

 private:
  int fd_ = -1;
};

struct DerivedBundleContents {
  Json config;                                             // written as genai_config.json
  std::set<std::string> skipped_sources;                   // top-level files not to mirror (replaced stages)
  std::map<std::string, std::filesystem::path> artifacts;  // name in _compiled/ -> file to move or link in
};

// Builds <bundle>/_compiled.tmp-XXXXXX with `contents`, writes the completion marker last, then swaps it with
// <bundle>/_compiled (renameat2 RENAME_EXCHANGE, or a plain rename when there is none) and deletes the old tree.
// Artifacts inside the old _compiled/ are hard-linked (copied if that fails) before the swap. The caller holds a
// BundleLock. Returns the path of _compiled/. Throws RuntimeError naming the path on I/O failure, leaving the
// previous _compiled/ (if any) untouched.
std::filesystem::path WriteDerivedBundle(const std::filesystem::path& bundle_dir,
                                         const DerivedBundleContents& contents);

// True when <bundle>/_compiled is complete and already holds exactly what WriteDerivedBundle would write for
// `contents`: the same config, every artifact taken from _compiled/ itself (reused, not new), for every bundle file a
// mirror entry that resolves to that very file (not merely one of the same name), and nothing else. Then a run can
// load it without rewriting it. (Where links fail and files were copied, the tree is rewritten on every run.)
bool DerivedBundleUpToDate(const std::filesystem::path& bundle_dir, const DerivedBundleContents& contents);

// True when <bundle>/_compiled holds a genai_config.json and the completion marker (a finished write).
bool DerivedBundleComplete(const std::filesystem::path& bundle_dir);

// Removes temporary siblings (_compiled.tmp-*, _compiled.old-*) left by killed runs. Caller holds a BundleLock.
void RemoveStaleDerivedTemporaries(const std::filesystem::path& bundle_dir);

}  // namespace modelkit::bundle
