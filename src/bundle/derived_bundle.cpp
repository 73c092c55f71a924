#include "modelkit/bundle/derived_bundle.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>

#include "modelkit/base/atomic_file.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/temp_dir.h"

namespace modelkit::bundle {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(const fs::path& path, const std::string& what) {
  throw RuntimeError("cannot write the derived bundle at '" + path.string() + "': " + what);
}

// Files of the bundle that are never mirrored: its config (rewritten), our own bookkeeping, and hidden files.
bool NeverMirrored(const std::string& name) {
  return name == "genai_config.json" || name.empty() || name.front() == '.';
}

// A mirror entry is a relative symlink `../<name>`: it resolves inside whatever directory the bundle is in now, so a
// moved or copied bundle (`mv`, `cp -a`) keeps a derived tree that reads its own files, never the original's.
void LinkOrCopy(const fs::path& source, const fs::path& target, bool hard) {
  std::error_code ec;
  if (hard) {
    fs::create_hard_link(source, target, ec);
  } else {
    fs::create_symlink(fs::path("..") / source.filename(), target, ec);
  }
  if (ec) {
    ec.clear();
    fs::copy_file(source, target, fs::copy_options::overwrite_existing, ec);
    if (ec) Fail(target, "cannot link or copy " + source.string() + ": " + ec.message());
  }
}

// Swaps two directory entries atomically; falls back to rename when the target does not exist yet.
void SwapInto(const fs::path& fresh, const fs::path& target, const fs::path& bundle_dir) {
  std::error_code ec;
  if (!fs::exists(target, ec)) {
    if (std::rename(fresh.c_str(), target.c_str()) != 0) Fail(target, std::strerror(errno));
    return;
  }
  if (renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(fresh, ec);  // now holds the previous tree
    return;
  }
  // Without RENAME_EXCHANGE: move the old tree aside first; a crash in between leaves no _compiled/ (never a
  // half one), and the next run rebuilds it.
  const fs::path old = bundle_dir / (std::string(kDerivedDirName) + ".old-" + std::to_string(getpid()));
  fs::remove_all(old, ec);
  if (std::rename(target.c_str(), old.c_str()) != 0) Fail(target, std::strerror(errno));
  if (std::rename(fresh.c_str(), target.c_str()) != 0) Fail(target, std::strerror(errno));
  fs::remove_all(old, ec);
}

}  // namespace

BundleLock::BundleLock(const fs::path& bundle_dir) {
  const fs::path lock = bundle_dir / ".modelkit.lock";
  fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw RuntimeError("cannot create lock file '" + lock.string() + "': " + std::strerror(errno));
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      close(fd_);
      throw RuntimeError("cannot lock '" + lock.string() + "': " + std::strerror(errno));
    }
  }
}

BundleLock::~BundleLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

fs::path WriteDerivedBundle(const fs::path& bundle_dir, const DerivedBundleContents& contents) {
  const fs::path target = bundle_dir / kDerivedDirName;
  std::optional<ScopedTempDir> staging = ScopedTempDir::Create(bundle_dir, std::string(kDerivedDirName) + ".tmp-");
  if (!staging) Fail(target, std::strerror(errno));
  const fs::path fresh = staging->path();
  fs::permissions(fresh, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                             fs::perms::others_exec);
  WriteFileAtomically(fresh / "genai_config.json", contents.config.dump(2) + "\n", /*overwrite=*/false);
  for (const auto& [name, source] : contents.artifacts) {
    std::error_code ec;
    const bool inside_old = fs::equivalent(source.parent_path(), target, ec);
    if (inside_old) {
      LinkOrCopy(source, fresh / name, /*hard=*/true);
    } else {
      fs::rename(source, fresh / name, ec);
      if (ec) LinkOrCopy(source, fresh / name, /*hard=*/true);
    }
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(bundle_dir)) {
    const std::string name = entry.path().filename().string();
    if (NeverMirrored(name) || !entry.is_regular_file() || contents.skipped_sources.count(name) ||
        contents.artifacts.count(name)) {
      continue;
    }
    LinkOrCopy(entry.path(), fresh / name, /*hard=*/false);
  }
  WriteFileAtomically(fresh / kCompleteMarker, "", /*overwrite=*/false);
  SwapInto(fresh, target, bundle_dir);
  staging->release();  // now _compiled/ itself, or the previous tree that SwapInto removed
  return target;
}

bool DerivedBundleComplete(const fs::path& bundle_dir) {
  std::error_code ec;
  const fs::path target = bundle_dir / kDerivedDirName;
  return fs::is_regular_file(target / kCompleteMarker, ec) && fs::is_regular_file(target / "genai_config.json", ec);
}

bool DerivedBundleUpToDate(const fs::path& bundle_dir, const DerivedBundleContents& contents) {
  if (!DerivedBundleComplete(bundle_dir)) return false;
  const fs::path target = bundle_dir / kDerivedDirName;
  std::error_code ec;
  const Json written = Json::parse(ReadTextFile(target / "genai_config.json", "derived genai config"), nullptr,
                                   /*allow_exceptions=*/false);
  if (written != contents.config) return false;
  std::set<std::string> expected = {"genai_config.json", kCompleteMarker};
  for (const auto& [name, source] : contents.artifacts) {
    if (!fs::equivalent(source.parent_path(), target, ec) || source.filename() != name) return false;
    expected.insert(name);
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(bundle_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (NeverMirrored(name) || !entry.is_regular_file() || contents.skipped_sources.count(name) ||
        contents.artifacts.count(name)) {
      continue;
    }
    // What the mirror entry resolves to must be this bundle's file: an absolute link written before the bundle
    // was moved dangles, and one in a copied bundle still names the original's file.
    std::error_code resolve_error;
    if (!fs::equivalent(target / name, entry.path(), resolve_error)) return false;
    expected.insert(name);
  }
  std::set<std::string> present;
  for (const fs::directory_entry& entry : fs::directory_iterator(target, ec)) {
    present.insert(entry.path().filename().string());
  }
  return !ec && present == expected;
}

void RemoveStaleDerivedTemporaries(const fs::path& bundle_dir) {
  std::error_code ec;
  const std::string tmp_prefix = std::string(kDerivedDirName) + ".tmp-";
  const std::string old_prefix = std::string(kDerivedDirName) + ".old-";
  for (const fs::directory_entry& entry : fs::directory_iterator(bundle_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(tmp_prefix, 0) == 0 || name.rfind(old_prefix, 0) == 0) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace modelkit::bundle
