// A temporary directory owned by a scope: made with mkdtemp, removed with everything in it when the owner goes away.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace modelkit {

class ScopedTempDir {
 public:
  // Makes a new directory `parent`/`prefix`XXXXXX (mkdtemp: a unique name, mode 0700). Returns nullopt when it
  // cannot, with errno saying why; callers word the error, since the folder's purpose is theirs to name.
  static std::optional<ScopedTempDir> Create(const std::filesystem::path& parent, std::string_view prefix);

  ~ScopedTempDir();
  ScopedTempDir(ScopedTempDir&& other) noexcept;
  ScopedTempDir& operator=(ScopedTempDir&& other) noexcept;
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  // The directory; empty after release().
  const std::filesystem::path& path() const { return path_; }

  // Stops owning the directory (it is no longer removed) and returns its path.
  std::filesystem::path release();

 private:
  explicit ScopedTempDir(std::filesystem::path path) : path_(std::move(path)) {}
  void Remove() noexcept;

  std::filesystem::path path_;
};

// The folders missing on the way to `dir`, made now and removed again (deepest first, each only while it is empty)
// when the owner goes away without Keep(): a command that fails leaves no empty folder where its output was to go.
class MadeFolders {
 public:
  // Makes `dir` and its missing parents. Throws RuntimeError naming the folder when it cannot.
  explicit MadeFolders(const std::filesystem::path& dir);
  ~MadeFolders();
  MadeFolders(const MadeFolders&) = delete;
  MadeFolders& operator=(const MadeFolders&) = delete;

  // The output is complete: the folders stay.
  void Keep() { made_.clear(); }

 private:
  void RemoveMade() noexcept;

  std::vector<std::filesystem::path> made_;  // outermost first
};

// Removes the folders in `dir` named `prefix` followed by a process id (then anything) whose process no longer runs:
// what a killed process left of its work in progress. Folders of live processes, and names that do not match, stay.
void RemoveFoldersOfEndedProcesses(const std::filesystem::path& dir, std::string_view prefix);

}  // namespace modelkit
