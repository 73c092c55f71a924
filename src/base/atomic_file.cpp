#include "modelkit/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "modelkit/base/error.h"

namespace modelkit {

void CheckOutputFile(const std::filesystem::path& path, bool overwrite) {
  std::error_code ec;
  // Replacing is for regular files: renaming over /dev/null (as root) or a FIFO would replace the node itself.
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw UsageError("output '" + path.string() + "' exists and is not a regular file (" +
                     (std::filesystem::is_directory(status) ? "a directory" : "a device, FIFO or socket") +
                     "); give the path of a file to write");
  }
  if (!overwrite && std::filesystem::exists(status)) {
    throw UsageError("output file '" + path.string() + "' already exists; pass --overwrite to replace it");
  }
  // The nearest existing folder above it must be a folder: a file there can never hold the output.
  for (std::filesystem::path above = path.parent_path(); !above.empty(); above = above.parent_path()) {
    const std::filesystem::file_status above_status = std::filesystem::status(above, ec);
    if (std::filesystem::exists(above_status)) {
      if (!std::filesystem::is_directory(above_status)) {
        throw UsageError("output '" + path.string() + "' cannot be written: '" + above.string() +
                         "' is a file, not a folder");
      }
      break;
    }
    if (above == above.parent_path()) break;
  }
}

namespace {

// Writes `content` to a fresh temporary file beside `path` (parents created), synced; returns its name.
std::string WriteTemporary(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw RuntimeError("cannot create directory '" + path.parent_path().string() + "': " + ec.message());
  }
  std::string temp = path.string() + ".tmp-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw RuntimeError("cannot write '" + path.string() + "': " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    const std::string reason = std::strerror(errno);
    close(fd);
    unlink(temp.c_str());
    throw RuntimeError("cannot write '" + path.string() + "': " + what + ": " + reason);
  };
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    written += static_cast<size_t>(n);
  }
  if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) fail("sync");
  if (close(fd) != 0) {
    unlink(temp.c_str());
    throw RuntimeError("cannot write '" + path.string() + "': " + std::strerror(errno));
  }
  return temp;
}

}  // namespace

void WriteFileAtomically(const std::filesystem::path& path, std::string_view content, bool overwrite) {
  CheckOutputFile(path, overwrite);
  const std::string temp = WriteTemporary(path, content);
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    unlink(temp.c_str());
    throw RuntimeError("cannot write '" + path.string() + "': " + reason);
  }
}

std::filesystem::path WriteNewFileAtomically(const std::filesystem::path& path, std::string_view content) {
  const std::string temp = WriteTemporary(path, content);
  constexpr int kMaxNames = 10000;
  for (int n = 1; n <= kMaxNames; ++n) {
    const std::filesystem::path candidate =
        n == 1 ? path
               : path.parent_path() / (path.stem().string() + "-" + std::to_string(n) + path.extension().string());
    // link() never replaces: EEXIST means another run (or an earlier one) has this name.
    if (link(temp.c_str(), candidate.c_str()) == 0) {
      unlink(temp.c_str());
      return candidate;
    }
    if (errno != EEXIST) {
      const std::string reason = std::strerror(errno);
      unlink(temp.c_str());
      throw RuntimeError("cannot write '" + candidate.string() + "': " + reason);
    }
  }
  unlink(temp.c_str());
  throw RuntimeError("cannot write '" + path.string() + "': " + std::to_string(kMaxNames) + " names are taken");
}

}  // namespace modelkit
