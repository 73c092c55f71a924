#include "modelkit/base/huge_pages.h"

#include <gnu/libc-version.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace modelkit {
namespace {

#ifndef MADV_COLLAPSE
constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; older headers lack the name, older kernels answer EINVAL
#endif

// The huge page size of anonymous memory, or 0 when the kernel has no transparent huge pages.
size_t HugePageBytes() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  size_t bytes = 0;
  return file >> bytes ? bytes : 0;
}

struct Range {
  uintptr_t begin;
  uintptr_t end;
};

// Private writable anonymous mappings: no backing file; unnamed, the heap or named anonymous memory ([anon:...]).
// Mappings larger than kMaxMapping are address-space reservations (e.g. a sanitizer's shadow memory), not data.
std::vector<Range> AnonymousMappings() {
  constexpr uintptr_t kMaxMapping = uintptr_t{1} << 40;
  std::vector<Range> ranges;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string addresses, perms, offset, device, inode, name;
    fields >> addresses >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, name);
    if (perms.size() < 4 || perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p' || inode != "0") continue;
    if (!name.empty() && name != "[heap]" && name.rfind("[anon:", 0) != 0) continue;
    const size_t dash = addresses.find('-');
    if (dash == std::string::npos) continue;
    const Range range{std::stoull(addresses.substr(0, dash), nullptr, 16),
                      std::stoull(addresses.substr(dash + 1), nullptr, 16)};
    if (range.end > range.begin && range.end - range.begin <= kMaxMapping) ranges.push_back(range);
  }
  return ranges;
}

bool FullyResident(uintptr_t begin, size_t bytes, size_t page, std::vector<unsigned char>& flags) {
  flags.resize(bytes / page);
  if (::mincore(reinterpret_cast<void*>(begin), bytes, flags.data()) != 0) return false;
  for (const unsigned char flag : flags) {
    if ((flag & 1) == 0) return false;
  }
  return true;
}

constexpr std::string_view kMallocTunable = "glibc.malloc.hugetlb";

// The value of glibc.malloc.hugetlb in a GLIBC_TUNABLES string ("name=value:name=value"), or "".
std::string_view MallocTunableIn(std::string_view tunables) {
  while (!tunables.empty()) {
    const size_t colon = tunables.find(':');
    const std::string_view entry = tunables.substr(0, colon);
    if (entry.substr(0, kMallocTunable.size()) == kMallocTunable && entry.size() > kMallocTunable.size() &&
        entry[kMallocTunable.size()] == '=') {
      return entry.substr(kMallocTunable.size() + 1);
    }
    if (colon == std::string_view::npos) break;
    tunables.remove_prefix(colon + 1);
  }
  return {};
}

bool GlibcAtLeast(std::string_view version, int major, int minor) {
  int have_major = 0, have_minor = 0;
  if (std::sscanf(std::string(version).c_str(), "%d.%d", &have_major, &have_minor) != 2) return false;
  return have_major > major || (have_major == major && have_minor >= minor);
}

}  // namespace

std::string TransparentHugePageMode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(file, modes);
  const size_t open = modes.find('['), close = modes.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return modes.substr(open + 1, close - open - 1);
}

std::optional<std::string> TunablesForHugePageMalloc(const char* tunables, const char* opt_out,
                                                     std::string_view thp_mode, std::string_view glibc_version) {
  if (opt_out && std::string_view(opt_out) == "0") return std::nullopt;
  if (thp_mode != "madvise" || !GlibcAtLeast(glibc_version, 2, 35)) return std::nullopt;
  const std::string_view current = tunables ? tunables : "";
  if (current.find(kMallocTunable) != std::string_view::npos) return std::nullopt;
  return std::string(current) + (current.empty() ? "" : ":") + std::string(kMallocTunable) + "=1";
}

void RestartWithHugePageMalloc(char** argv) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)argv;
#else
  const std::optional<std::string> tunables =
      TunablesForHugePageMalloc(std::getenv("GLIBC_TUNABLES"), std::getenv("MODELKIT_HUGE_PAGES"),
                                TransparentHugePageMode(), gnu_get_libc_version());
  // Under valgrind the program is valgrind's guest: an exec would leave valgrind (or, of /proc/self/exe, run
  // valgrind's own tool binary without its launcher).
  const char* preload = std::getenv("LD_PRELOAD");
  if (!tunables || (preload && std::strstr(preload, "vgpreload"))) return;
  // The path the kernel started, not argv[0] (which need not name a file).
  std::string self(4096, '\0');
  const ssize_t length = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (length <= 0 || static_cast<size_t>(length) >= self.size() - 1) return;
  self.resize(static_cast<size_t>(length));
  if (::setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  ::execv(self.c_str(), argv);
  // The exec failed (no /proc, the binary replaced): go on as we are; the tunable stays set for nothing but children.
#endif
}

bool MallocUsesHugePages() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (!tunables || !GlibcAtLeast(gnu_get_libc_version(), 2, 35)) return false;
  const std::string_view value = MallocTunableIn(tunables);
  return value == "1" || value == "2";
}

size_t CollapseResidentMemoryIntoHugePages() {
  const size_t huge = HugePageBytes();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  if (huge == 0 || page == 0 || huge % page != 0) return 0;
  size_t collapsed = 0;
  std::vector<unsigned char> flags;
  for (const Range& mapping : AnonymousMappings()) {
    const uintptr_t first = (mapping.begin + huge - 1) / huge * huge;
    const uintptr_t last = mapping.end / huge * huge;
    // Consecutive fully resident huge ranges are collapsed with one call.
    uintptr_t run = first;
    for (uintptr_t at = first; at <= last; at += huge) {
      const bool resident = at < last && FullyResident(at, huge, page, flags);
      if (resident) continue;
      if (at > run) {
        if (::madvise(reinterpret_cast<void*>(run), at - run, MADV_COLLAPSE) == 0) {
          collapsed += at - run;
        } else if (errno == EINVAL) {
          return collapsed;  // the kernel cannot collapse (too old, or huge pages disabled)
        }
      }
      run = at + huge;
    }
  }
  return collapsed;
}

}  // namespace modelkit
