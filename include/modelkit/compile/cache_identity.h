// What an EPContext artifact was compiled from, recorded beside it, and the rule that decides whether it can be
// reused. Stronger than winml-cli's check, which trusts source modification times: the sources' content (size + mtime
// as a fast path, a content hash when those differ), the EP, its provider options, the ORT version and the EP library's
// version must all match; anything different means recompiling, and an artifact compiled for one EP is never used for
// another.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelkit::compile {

struct SourceIdentity {
  std::string name;  // file name relative to the bundle (e.g. "ctx.onnx", "ctx.onnx.data")
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  std::string content_hash;  // XXH3-128 of the content, hex
};

struct CompileIdentity {
  std::string stage;  // the pipeline stage compiled (informational: listing the cache; not part of freshness)
  std::vector<SourceIdentity> sources;
  std::string ep;  // canonical EP name
  std::map<std::string, std::string> provider_options;
  std::string ort_version;
  std::string ep_version;  // the EP library's version ("" for built-ins)
};

// Size, mtime and content hash of `dir`/`name`. Throws RuntimeError naming the file when it cannot be read.
SourceIdentity IdentifySource(const std::filesystem::path& dir, const std::string& name);

// XXH3-128 of `text` as 32 hex digits.
std::string HashText(std::string_view text);

// XXH3-128 of a file's content as 32 hex digits. Throws RuntimeError naming the file on read failure.
std::string HashFile(const std::filesystem::path& path);

// The source part of StaleReason: whether the files `source_names` in `dir` are still those `recorded` (in that
// order), with the same size+mtime fast path and content-hash fallback. Returns why not, or nullopt.
std::optional<std::string> SourcesStaleReason(const std::vector<SourceIdentity>& recorded,
                                              const std::filesystem::path& dir,
                                              const std::vector<std::string>& source_names);

// Sources as JSON and back; SourcesFromJson throws nlohmann::json::exception for a malformed list.
nlohmann::json SourcesToJson(const std::vector<SourceIdentity>& sources);
std::vector<SourceIdentity> SourcesFromJson(const nlohmann::json& json);

nlohmann::json ToJson(const CompileIdentity& identity);
// nullopt when `json` is not a record this version wrote (then the artifact is recompiled).
std::optional<CompileIdentity> FromJson(const nlohmann::json& json);

// Whether an artifact recorded as `recorded` may serve a compile whose inputs are now `ep`, `provider_options`,
// `ort_version`, `ep_version` and the source files `source_names` in `dir`. Sources whose size and mtime match the
// record are trusted without hashing; others are hashed and must match the recorded hash (a touched but unchanged
// file is still fresh). Returns the reason it is stale, or nullopt when fresh.
std::optional<std::string> StaleReason(const CompileIdentity& recorded, const std::filesystem::path& dir,
                                       const std::vector<std::string>& source_names, const std::string& ep,
                                       const std::map<std::string, std::string>& provider_options,
                                       const std::string& ort_version, const std::string& ep_version);

}  // namespace modelkit::compile
