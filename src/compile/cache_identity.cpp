#include "modelkit/compile/cache_identity.h"

#include <sys/stat.h>
#include <xxhash.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

#include "modelkit/base/error.h"

namespace modelkit::compile {
namespace {

namespace fs = std::filesystem;
constexpr int kRecordVersion = 1;

// Modification time in nanoseconds since the Unix epoch (stat's, not file_time_type's clock, whose epoch is not
// the Unix one); -1 when the file cannot be stat'ed.
int64_t MtimeNs(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return -1;
  return static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

}  // namespace

std::string HashText(std::string_view text) {
  const XXH128_hash_t hash = XXH3_128bits(text.data(), text.size());
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(hash.high64),
                static_cast<unsigned long long>(hash.low64));
  return hex;
}

std::string HashFile(const fs::path& path) {
  std::unique_ptr<FILE, decltype(&std::fclose)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw RuntimeError("cannot read '" + path.string() + "': " + std::strerror(errno));
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  XXH3_128bits_reset(state.get());
  std::vector<char> buffer(1 << 20);
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0)
    XXH3_128bits_update(state.get(), buffer.data(), n);
  if (std::ferror(file.get())) throw RuntimeError("cannot read '" + path.string() + "'");
  const XXH128_hash_t hash = XXH3_128bits_digest(state.get());
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(hash.high64),
                static_cast<unsigned long long>(hash.low64));
  return hex;
}

SourceIdentity IdentifySource(const fs::path& dir, const std::string& name) {
  const fs::path path = dir / name;
  std::error_code ec;
  SourceIdentity identity;
  identity.name = name;
  identity.size = fs::file_size(path, ec);
  if (ec) throw RuntimeError("cannot read '" + path.string() + "': " + ec.message());
  identity.mtime_ns = MtimeNs(path);
  identity.content_hash = HashFile(path);
  return identity;
}

nlohmann::json SourcesToJson(const std::vector<SourceIdentity>& sources) {
  nlohmann::json list = nlohmann::json::array();
  for (const SourceIdentity& source : sources) {
    list.push_back({{"name", source.name},
                    {"size", source.size},
                    {"mtime_ns", source.mtime_ns},
                    {"xxh3_128", source.content_hash}});
  }
  return list;
}

std::vector<SourceIdentity> SourcesFromJson(const nlohmann::json& json) {
  std::vector<SourceIdentity> sources;
  for (const nlohmann::json& source : json) {
    sources.push_back({source.at("name").get<std::string>(), source.at("size").get<uint64_t>(),
                       source.at("mtime_ns").get<int64_t>(), source.at("xxh3_128").get<std::string>()});
  }
  return sources;
}

nlohmann::json ToJson(const CompileIdentity& identity) {
  const nlohmann::json sources = SourcesToJson(identity.sources);
  return {{"record_version", kRecordVersion},
          {"stage", identity.stage},
          {"ep", identity.ep},
          {"provider_options", identity.provider_options},
          {"ort_version", identity.ort_version},
          {"ep_version", identity.ep_version},
          {"sources", sources}};
}

std::optional<CompileIdentity> FromJson(const nlohmann::json& json) {
  try {
    if (json.at("record_version").get<int>() != kRecordVersion) return std::nullopt;
    CompileIdentity identity;
    identity.stage = json.value("stage", "");  // records written before stages were recorded have none
    identity.ep = json.at("ep").get<std::string>();
    identity.provider_options = json.at("provider_options").get<std::map<std::string, std::string>>();
    identity.ort_version = json.at("ort_version").get<std::string>();
    identity.ep_version = json.at("ep_version").get<std::string>();
    identity.sources = SourcesFromJson(json.at("sources"));
    return identity;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> StaleReason(const CompileIdentity& recorded, const fs::path& dir,
                                       const std::vector<std::string>& source_names, const std::string& ep,
                                       const std::map<std::string, std::string>& provider_options,
                                       const std::string& ort_version, const std::string& ep_version) {
  if (recorded.ep != ep) return "compiled for " + recorded.ep + ", not " + ep;
  if (recorded.provider_options != provider_options) return "provider options changed";
  if (recorded.ort_version != ort_version) return "ONNX Runtime " + recorded.ort_version + " -> " + ort_version;
  if (recorded.ep_version != ep_version) return "EP version " + recorded.ep_version + " -> " + ep_version;
  return SourcesStaleReason(recorded.sources, dir, source_names);
}

std::optional<std::string> SourcesStaleReason(const std::vector<SourceIdentity>& recorded, const fs::path& dir,
                                              const std::vector<std::string>& source_names) {
  if (recorded.size() != source_names.size()) return "the set of source files changed";
  for (size_t i = 0; i < source_names.size(); ++i) {
    const SourceIdentity& was = recorded[i];
    if (was.name != source_names[i]) return "the set of source files changed";
    const fs::path path = dir / was.name;
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    if (ec) return was.name + " is missing";
    if (size != was.size) return was.name + " changed size";
    if (MtimeNs(path) == was.mtime_ns) continue;  // fast path: same size and mtime
    if (HashFile(path) != was.content_hash) return was.name + " changed content";
  }
  return std::nullopt;
}

}  // namespace modelkit::compile
