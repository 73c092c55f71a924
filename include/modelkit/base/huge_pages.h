// Backing memory that is already in use with transparent huge pages (2 MiB on x86-64 instead of 4 KiB pages).
//
// A model's weights, once loaded and repacked by ONNX Runtime, are hundreds of MB of anonymous memory that every
// generated token streams through. With 4 KiB pages each 4 KiB costs a TLB entry and a page walk, and the hardware
// prefetchers stop at every page boundary; with 2 MiB pages they do not. Most distributions ship transparent huge
// pages in "madvise" mode, so a process gets them only where it asks.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace modelkit {

// The transparent huge page mode of this kernel ("always", "madvise" or "never"), or "" when it has none.
std::string TransparentHugePageMode();

// glibc's malloc asks for huge pages only when the process starts with the tunable glibc.malloc.hugetlb=1 (glibc >=
// 2.35): ONNX Runtime's arena and the buffers of a prefill then take one page fault per 2 MiB instead of per 4 KiB.
//
// The GLIBC_TUNABLES value to restart with, given this process's GLIBC_TUNABLES (nullptr: unset), its
// MODELKIT_HUGE_PAGES (nullptr: unset; "0" opts out), the transparent huge page mode and glibc's version; nullopt
// when a restart would change nothing: opted out, the tunable already set (by the user, or by the restart itself),
// huge pages off or on for every mapping already ("always"), or a glibc without the tunable.
std::optional<std::string> TunablesForHugePageMalloc(const char* tunables, const char* opt_out,
                                                     std::string_view thp_mode, std::string_view glibc_version);

// Re-executes this program (/proc/self/exe, the same arguments, the environment plus the GLIBC_TUNABLES above) when
// TunablesForHugePageMalloc says so; otherwise, or when the exec fails, returns and the program goes on as it was.
// Call it first thing in main, before any thread starts. Sanitizer builds, whose malloc is not glibc's, and programs
// running under valgrind never restart.
void RestartWithHugePageMalloc(char** argv);

// Whether this process's malloc asks for huge pages (it started with glibc.malloc.hugetlb set to 1 or 2).
bool MallocUsesHugePages();

// Collapses every 2 MiB-aligned range of this process's private anonymous memory (heap and anonymous mappings, not
// stacks or files) whose pages are all resident into huge pages, in place (MADV_COLLAPSE, Linux >= 6.1). Only fully
// resident ranges are touched, so resident memory does not grow. Call it after loading, once the memory that will be
// read over and over is in place. Returns the bytes collapsed; 0 where the kernel cannot (older kernel, huge pages
// disabled), which changes nothing else.
size_t CollapseResidentMemoryIntoHugePages();

}  // namespace modelkit
