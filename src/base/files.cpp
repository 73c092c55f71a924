#include "modelkit/base/files.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "modelkit/base/error.h"

namespace modelkit {

std::string ReadTextFile(const std::filesystem::path& path, const std::string& what, size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw UsageError(what + " '" + path.string() + "' does not exist");
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError(what + " '" + path.string() + "' is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + what + " '" + path.string() + "': " + std::strerror(errno));
  std::string content;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    content.append(buffer, static_cast<size_t>(in.gcount()));
    if (content.size() > max_bytes) {
      throw UsageError(what + " '" + path.string() + "' is larger than " + std::to_string(max_bytes >> 20) +
                       " MiB, the most modelkit reads for it");
    }
  }
  if (in.bad()) throw UsageError("cannot read " + what + " '" + path.string() + "'");
  return content;
}

std::filesystem::path UserCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') return xdg;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".cache";
  }
  return ".cache";
}

}  // namespace modelkit
