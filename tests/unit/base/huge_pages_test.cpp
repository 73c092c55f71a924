// Collapsing resident anonymous memory into transparent huge pages: fully resident ranges become huge pages, in
// place and with their contents; partly resident ranges are left alone, so resident memory does not grow.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "modelkit/base/huge_pages.h"

namespace modelkit {
namespace {

constexpr size_t kHuge = size_t{2} << 20;

// An anonymous mapping of `huge_pages` x 2 MiB starting on a 2 MiB boundary.
class AlignedMapping {
 public:
  explicit AlignedMapping(size_t huge_pages) : bytes_(huge_pages * kHuge) {
    raw_ = static_cast<std::byte*>(
        mmap(nullptr, bytes_ + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(raw_, MAP_FAILED);
    data_ = reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(raw_) + kHuge - 1) / kHuge * kHuge);
  }
  ~AlignedMapping() { munmap(raw_, bytes_ + kHuge); }
  std::byte* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_;
  std::byte* raw_;
  std::byte* data_;
};

// Rss and AnonHugePages in KiB of the mapping that contains `address`, from /proc/self/smaps.
struct MappingMemory {
  size_t rss_kb = 0;
  size_t huge_kb = 0;
};
MappingMemory MemoryOf(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  MappingMemory memory;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-' && line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
      continue;
    }
    if (!inside) continue;
    std::istringstream field(line);
    std::string key;
    size_t kb = 0;
    field >> key >> kb;
    if (key == "Rss:") memory.rss_kb = kb;
    if (key == "AnonHugePages:") memory.huge_kb = kb;
  }
  return memory;
}

bool KernelCollapses() {
  if (TransparentHugePageMode().empty() || TransparentHugePageMode() == "never") return false;
  AlignedMapping probe(1);
  std::memset(probe.data(), 1, probe.bytes());
  return madvise(probe.data(), probe.bytes(), 25 /* MADV_COLLAPSE */) == 0;
}

TEST(HugePagesTest, FullyResidentRangesBecomeHugePagesWithTheirContents) {
  if (!KernelCollapses()) GTEST_SKIP() << "this kernel cannot collapse memory into huge pages (Linux < 6.1 or THP off)";
  // Three huge ranges; the first two written in full (as loaded weights are), the third only in its first page.
  // In "madvise" mode (the usual one) the writes fault in 4 KiB pages; in "always" mode they may get huge pages
  // at once, and so may the third range.
  const bool always = TransparentHugePageMode() == "always";
  AlignedMapping mapping(3);
  for (size_t i = 0; i < 2 * kHuge; ++i) mapping.data()[i] = static_cast<std::byte>(i * 7 + 3);
  mapping.data()[2 * kHuge] = std::byte{42};
  const MappingMemory before = MemoryOf(mapping.data());
  ASSERT_GE(before.rss_kb, 2 * kHuge / 1024);

  EXPECT_GE(CollapseResidentMemoryIntoHugePages(), 2 * kHuge);

  const MappingMemory after = MemoryOf(mapping.data());
  if (!always) {
    EXPECT_EQ(before.huge_kb, 0u);
  }
  EXPECT_GE(after.huge_kb, 2 * kHuge / 1024) << "the two written ranges";
  if (!always) {
    EXPECT_EQ(after.huge_kb, 2 * kHuge / 1024) << "not the partly written third";
  }
  EXPECT_LE(after.rss_kb, before.rss_kb) << "collapsing must not make more memory resident";
  for (size_t i = 0; i < 2 * kHuge; ++i) {
    ASSERT_EQ(mapping.data()[i], static_cast<std::byte>(i * 7 + 3)) << i;
  }
  EXPECT_EQ(mapping.data()[2 * kHuge], std::byte{42});
}

TEST(HugePagesTest, RestartAddsTheMallocTunableOnlyWhereItChangesSomething) {
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, nullptr, "madvise", "2.36"), "glibc.malloc.hugetlb=1");
  // The user's other tunables are kept.
  EXPECT_EQ(TunablesForHugePageMalloc("glibc.malloc.arena_max=2", nullptr, "madvise", "2.41"),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesForHugePageMalloc("", nullptr, "madvise", "2.35"), "glibc.malloc.hugetlb=1");
  // Already set (by the user, or by the restart itself: no loop).
  EXPECT_EQ(TunablesForHugePageMalloc("glibc.malloc.hugetlb=0", nullptr, "madvise", "2.36"), std::nullopt);
  EXPECT_EQ(TunablesForHugePageMalloc("a=1:glibc.malloc.hugetlb=1", nullptr, "madvise", "2.36"), std::nullopt);
  // Opted out; any other value of MODELKIT_HUGE_PAGES does not opt out.
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, "0", "madvise", "2.36"), std::nullopt);
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, "1", "madvise", "2.36"), "glibc.malloc.hugetlb=1");
  // Huge pages off, or already everywhere; no such kernel feature; a glibc without the tunable.
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, nullptr, "never", "2.36"), std::nullopt);
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, nullptr, "always", "2.36"), std::nullopt);
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, nullptr, "", "2.36"), std::nullopt);
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, nullptr, "madvise", "2.34"), std::nullopt);
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, nullptr, "madvise", "3.0"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesForHugePageMalloc(nullptr, nullptr, "madvise", "unknown"), std::nullopt);
}

}  // namespace
}  // namespace modelkit
