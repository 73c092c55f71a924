// Writing files so that readers never see half of one: write a temporary sibling, flush, rename over the target.
#pragma once

#include <filesystem>
#include <string_view>

namespace modelkit {

// Throws UsageError unless `path` may be written as an output file: it does not exist, or it is a regular file and
// `overwrite` is set, and no existing path above it is a file. Commands call it before long work, so that a bad -o is
// refused before the run.
void CheckOutputFile(const std::filesystem::path& path, bool overwrite);

// Writes `content` to `path` atomically, creating parent directories. With `overwrite` false an existing file
// is a UsageError (nothing is written); so is an existing path that is not a regular file (a directory, a device
// such as /dev/null, a FIFO), whatever `overwrite` says (CheckOutputFile). Other failures are RuntimeErrors naming the
// path; no temporary file is left behind.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content, bool overwrite);

// Writes `content` atomically to a file that did not exist: `path`, else `<stem>-2<ext>`, `<stem>-3<ext>`, ...
// Each attempt links the finished file in without replacing anything, so concurrent writers never take the same
// name. Returns the path written; RuntimeError naming `path` on I/O failure or after 10000 names taken.
std::filesystem::path WriteNewFileAtomically(const std::filesystem::path& path, std::string_view content);

}  // namespace modelkit
