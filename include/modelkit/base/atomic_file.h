// Writing files so that readers never see half of one: write a temporary sibling, flush, rename over the target.
#pragma once

#include <filesystem>
#include <string_view>

namespace modelkit {

// Writes `content` to `path` atomically, creating parent directories. With `overwrite` false an existing file
// is a UsageError (nothing is written). Other failures are RuntimeErrors naming the path; no temporary file is
// left behind.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content, bool overwrite);

}  // namespace modelkit
