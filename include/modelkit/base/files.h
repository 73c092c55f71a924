// Whole-file reads with user-facing errors.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace modelkit {

// The largest file ReadTextFile reads unless told otherwise: far above any real config, tokenizer.json (the largest
// are ~35 MB) or template, and a bound for what is not a file at all (/dev/zero, a FIFO that never ends).
inline constexpr size_t kMaxTextFileBytes = size_t{512} << 20;

// Reads a whole file of at most `max_bytes`. Throws UsageError naming the path when it is missing, unreadable or
// larger (`what` describes the file for the message, e.g. "EP catalog file"); reading stops at the limit, so an
// endless input costs max_bytes, not all of memory.
std::string ReadTextFile(const std::filesystem::path& path, const std::string& what,
                         size_t max_bytes = kMaxTextFileBytes);

// The user's cache directory: $XDG_CACHE_HOME, else $HOME/.cache, else ./.cache (nothing is created).
std::filesystem::path UserCacheDir();

}  // namespace modelkit
