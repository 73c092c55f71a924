#include "support/temp_dir.h"

#include <stdlib.h>

#include <fstream>

#include <gtest/gtest.h>

namespace modelkit::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "modelkit-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path TempDir::Write(const std::string& relative, const std::string& content) const {
  const std::filesystem::path target = path_ / relative;
  std::filesystem::create_directories(target.parent_path());
  std::ofstream(target, std::ios::binary) << content;
  return target;
}

}  // namespace modelkit::test
