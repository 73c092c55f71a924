// A fresh temporary directory per test, removed with everything in it when the object goes away.
#pragma once

#include <filesystem>
#include <string>

namespace modelkit::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `content` to path()/relative (creating parent folders) and returns the full path.
  std::filesystem::path Write(const std::string& relative, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace modelkit::test
