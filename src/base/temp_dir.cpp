#include "modelkit/base/temp_dir.h"

#include <signal.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdlib>

#include <string>
#include <utility>

#include "modelkit/base/error.h"

namespace modelkit {

namespace fs = std::filesystem;

std::optional<ScopedTempDir> ScopedTempDir::Create(const fs::path& parent, std::string_view prefix) {
  std::string pattern = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) return std::nullopt;  // errno survives: glibc's free() keeps it
  return ScopedTempDir(fs::path(std::move(pattern)));
}

ScopedTempDir::~ScopedTempDir() { Remove(); }

ScopedTempDir::ScopedTempDir(ScopedTempDir&& other) noexcept : path_(std::exchange(other.path_, fs::path())) {}

ScopedTempDir& ScopedTempDir::operator=(ScopedTempDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::exchange(other.path_, fs::path());
  }
  return *this;
}

fs::path ScopedTempDir::release() { return std::exchange(path_, fs::path()); }

void ScopedTempDir::Remove() noexcept {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

MadeFolders::MadeFolders(const fs::path& dir) {
  std::error_code ec;
  for (fs::path missing = dir; !missing.empty() && !fs::exists(fs::symlink_status(missing, ec));
       missing = missing.parent_path()) {
    made_.insert(made_.begin(), missing);
    if (missing == missing.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    const std::string reason = ec.message();
    RemoveMade();  // what was made before the failure
    throw RuntimeError("cannot create directory '" + dir.string() + "': " + reason);
  }
}

MadeFolders::~MadeFolders() { RemoveMade(); }

void MadeFolders::RemoveMade() noexcept {
  std::error_code ec;
  for (auto folder = made_.rbegin(); folder != made_.rend(); ++folder) fs::remove(*folder, ec);  // empty ones only
  made_.clear();
}

void RemoveFoldersOfEndedProcesses(const fs::path& dir, std::string_view prefix) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const char* digits = name.c_str() + prefix.size();
    char* end = nullptr;
    const long pid = std::strtol(digits, &end, 10);
    if (end == digits || pid <= 0 || !entry.is_directory(ec)) continue;
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace modelkit
