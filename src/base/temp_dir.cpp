#include "modelkit/base/temp_dir.h"

#include <stdlib.h>

#include <string>
#include <utility>

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

}  // namespace modelkit
