#include "modelkit/base/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "modelkit/base/error.h"

namespace modelkit {

std::string ReadTextFile(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw UsageError(what + " '" + path.string() + "' does not exist");
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError(what + " '" + path.string() + "' is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + what + " '" + path.string() + "': " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw UsageError("cannot read " + what + " '" + path.string() + "'");
  return content.str();
}

}  // namespace modelkit
