// Whole-file reads with user-facing errors.
#pragma once

#include <filesystem>
#include <string>

namespace modelkit {

// Reads a whole file. Throws UsageError naming the path when it is missing or unreadable
// (`what` describes the file for the message, e.g. "EP catalog file").
std::string ReadTextFile(const std::filesystem::path& path, const std::string& what);

}  // namespace modelkit
