// The pages this process maps from a model's files.
//
// ONNX Runtime maps a model's external data file (`*.onnx.data`, private and writable) and reads initializers
// straight from the mapping: the weights it repacks into its own buffers while a session is created, the fp32
// embedding table a Gather reads row by row. Every page it touched stays mapped, and counts in the process's
// resident memory, until the session ends, although the repacked weights are never read from it again. On kernels
// whose page cache holds large folios (ext4 and xfs on Linux 6.16+) a read fault maps the whole folio around the
// page, so the cost of a touched page is up to a folio's size (2 MiB, one PMD entry, where the folio is that large).
#pragma once

#include <cstddef>
#include <filesystem>

namespace modelkit {

// For every private mapping of a file under `directory` that holds no page copied on write: asks the kernel never to
// map it with huge entries again (MADV_NOHUGEPAGE: a later fault maps a few pages around it, not a 2 MiB folio) and
// drops the pages mapped so far (MADV_DONTNEED). Such a mapping's pages all equal the file's, so nothing is lost: a
// later read maps the page again from the page cache (a minor fault; no disk read while the cache keeps it), and a
// later write copies it as before. Returns the resident bytes dropped. Call it once the sessions reading those files
// are created, while nothing runs in them.
size_t ReleaseFileMappingsUnder(const std::filesystem::path& directory);

// Asks the kernel to reclaim the whole pages inside [data, data + bytes) (MADV_PAGEOUT), for memory that was read
// once and will not be read again soon. Loses nothing, whatever the memory is: a clean page of a file is dropped and
// a later read maps it again from the file; a page copied on write or an anonymous one goes to swap, or stays where
// there is none. Nothing happens on kernels without MADV_PAGEOUT (before Linux 5.4).
void ReclaimPages(const void* data, size_t bytes);

}  // namespace modelkit
