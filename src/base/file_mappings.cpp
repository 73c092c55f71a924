#include "modelkit/base/file_mappings.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace modelkit {
namespace {

struct FileMapping {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool private_mapping = false;
  std::string path;
  std::optional<size_t> anonymous_kib;  // pages copied on write (the mapping's "Anonymous:" line)
  size_t resident_kib = 0;              // the mapping's "Rss:" line
};

// The file mappings of /proc/self/smaps.
std::vector<FileMapping> FileMappings() {
  std::vector<FileMapping> mappings;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_file = false;
  while (std::getline(smaps, line)) {
    // A mapping's header is "begin-end perms offset device inode [path]"; its detail lines are "Key: value".
    const size_t dash = line.find('-');
    const size_t space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space && line[space - 1] != ':') {
      char perms[8] = {};
      unsigned long long begin = 0, end = 0, offset = 0, inode = 0;
      int path_at = 0;
      char device[32] = {};
      if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %31s %llu %n", &begin, &end, perms, &offset, device, &inode,
                      &path_at) < 6) {
        in_file = false;
        continue;
      }
      in_file = inode != 0 && path_at > 0 && static_cast<size_t>(path_at) < line.size();
      if (!in_file) continue;
      mappings.push_back({static_cast<uintptr_t>(begin), static_cast<uintptr_t>(end), perms[3] == 'p',
                          line.substr(static_cast<size_t>(path_at)), std::nullopt, 0});
    } else if (in_file && line.rfind("Rss:", 0) == 0) {
      std::sscanf(line.c_str(), "Rss: %zu", &mappings.back().resident_kib);
    } else if (in_file && line.rfind("Anonymous:", 0) == 0) {
      size_t kib = 0;
      if (std::sscanf(line.c_str(), "Anonymous: %zu", &kib) == 1) mappings.back().anonymous_kib = kib;
    }
  }
  return mappings;
}

}  // namespace

size_t ReleaseFileMappingsUnder(const std::filesystem::path& directory) {
  std::error_code error;
  const std::filesystem::path root = std::filesystem::canonical(directory, error);
  if (error) return 0;
  const std::string prefix = root.string() + "/";
  size_t released_kib = 0;
  for (const FileMapping& mapping : FileMappings()) {
    // Private and without a page copied on write: every resident page equals the file's, so dropping loses nothing.
    if (!mapping.private_mapping || mapping.anonymous_kib != size_t{0} || mapping.path.rfind(prefix, 0) != 0) continue;
    void* start = reinterpret_cast<void*>(mapping.begin);
    ::madvise(start, mapping.end - mapping.begin, MADV_NOHUGEPAGE);
    if (::madvise(start, mapping.end - mapping.begin, MADV_DONTNEED) == 0) released_kib += mapping.resident_kib;
  }
  // The dropped mappings' own pages: the process's RssFile would also count pages other code faults in meanwhile.
  return released_kib * 1024;
}

void ReclaimPages(const void* data, size_t bytes) {
#ifdef MADV_PAGEOUT
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_PAGEOUT);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace modelkit
