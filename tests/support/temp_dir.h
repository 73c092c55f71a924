// A fresh temporary directory per test, removed with everything in it when the object goes away.
#pragma once

#include <filesystem>
#include <string>

#include "modelkit/base/temp_dir.h"

namespace modelkit::test {

class TempDir {
 public:
  // Throws std::runtime_error when the directory cannot be made (the test fails with that message).
  TempDir();

  const std::filesystem::path& path() const { return dir_.path(); }
  // Writes `content` to path()/relative (creating parent folders) and returns the full path.
  std::filesystem::path Write(const std::string& relative, const std::string& content) const;

 private:
  ScopedTempDir dir_;
};

}  // namespace modelkit::test
