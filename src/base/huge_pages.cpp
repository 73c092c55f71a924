#include "modelkit/base/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
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

}  // namespace

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
