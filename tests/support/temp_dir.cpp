#include "support/temp_dir.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace modelkit::test {
namespace {

ScopedTempDir MakeTestDir() {
  const std::filesystem::path parent = std::filesystem::temp_directory_path();
  std::optional<ScopedTempDir> dir = ScopedTempDir::Create(parent, "modelkit-test-");
  if (!dir)
    throw std::runtime_error("cannot create a temporary directory in " + parent.string() + ": " + std::strerror(errno));
  return std::move(*dir);
}

}  // namespace

TempDir::TempDir() : dir_(MakeTestDir()) {}

std::filesystem::path TempDir::Write(const std::string& relative, const std::string& content) const {
  const std::filesystem::path target = path() / relative;
  std::filesystem::create_directories(target.parent_path());
  std::ofstream(target, std::ios::binary) << content;
  return target;
}

}  // namespace modelkit::test
