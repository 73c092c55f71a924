// Backing memory that is already in use with transparent huge pages (2 MiB on x86-64 instead of 4 KiB pages).
//
// A model's weights, once loaded and repacked by ONNX Runtime, are hundreds of MB of anonymous memory that every
// generated token streams through. With 4 KiB pages each 4 KiB costs a TLB entry and a page walk, and the hardware
// prefetchers stop at every page boundary; with 2 MiB pages they do not. Most distributions ship transparent huge
// pages in "madvise" mode, so a process gets them only where it asks.
#pragma once

#include <cstddef>

namespace modelkit {

// Collapses every 2 MiB-aligned range of this process's private anonymous memory (heap and anonymous mappings, not
// stacks or files) whose pages are all resident into huge pages, in place (MADV_COLLAPSE, Linux >= 6.1). Only fully
// resident ranges are touched, so resident memory does not grow. Call it after loading, once the memory that will be
// read over and over is in place. Returns the bytes collapsed; 0 where the kernel cannot (older kernel, huge pages
// disabled), which changes nothing else.
size_t CollapseResidentMemoryIntoHugePages();

}  // namespace modelkit
