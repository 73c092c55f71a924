// The compile cache's bookkeeping: which entries a rewrite keeps (the size/age policy), reading entries from a
// directory, the policy's environment variables, and removal in place.
#include "modelkit/compile/compile_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "modelkit/base/error.h"
#include "support/temp_dir.h"

namespace modelkit::compile {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kDay = int64_t{24} * 3600 * 1'000'000'000;
constexpr int64_t kNow = 1000 * kDay;

CacheEntry Entry(const std::string& name, uint64_t bytes, int64_t last_used) {
  CacheEntry entry;
  entry.artifact = name;
  entry.bytes = bytes;
  entry.last_used_unix_ns = last_used;
  return entry;
}

std::vector<std::string> Names(const std::vector<CacheEntry>& entries) {
  std::vector<std::string> names;
  for (const CacheEntry& entry : entries) names.push_back(entry.artifact);
  return names;
}

TEST(CompileCachePolicy, KeepsTheMostRecentlyUsedThatFitBesideWhatIsInUse) {
  CachePolicy policy;
  policy.max_bytes = 100;
  const std::vector<CacheEntry> entries = {Entry("old", 30, kNow - 3 * kDay), Entry("new", 30, kNow - kDay),
                                           Entry("mid", 30, kNow - 2 * kDay)};
  EXPECT_EQ(Names(EntriesToKeep(entries, 0, policy, kNow)), (std::vector<std::string>{"new", "mid", "old"}));
  EXPECT_EQ(Names(EntriesToKeep(entries, 40, policy, kNow)), (std::vector<std::string>{"new", "mid"}));
  EXPECT_EQ(Names(EntriesToKeep(entries, 100, policy, kNow)), std::vector<std::string>{})
      << "what is in use fills the limit: nothing else stays";
  // A large entry that does not fit is skipped; a smaller, older one still fits.
  const std::vector<CacheEntry> mixed = {Entry("big", 80, kNow - kDay), Entry("small", 10, kNow - 2 * kDay)};
  EXPECT_EQ(Names(EntriesToKeep(mixed, 30, policy, kNow)), std::vector<std::string>{"small"});
}

TEST(CompileCachePolicy, DropsEntriesUnusedForLongerThanTheAgeLimit) {
  CachePolicy policy;
  policy.max_unused_age = std::chrono::hours(24 * 7);
  const std::vector<CacheEntry> entries = {Entry("week-old", 1, kNow - 7 * kDay), Entry("stale", 1, kNow - 8 * kDay)};
  EXPECT_EQ(Names(EntriesToKeep(entries, 0, policy, kNow)), std::vector<std::string>{"week-old"});
  policy.max_unused_age = std::chrono::hours(0);
  EXPECT_TRUE(EntriesToKeep(entries, 0, policy, kNow).empty());
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(CompileCachePolicy, FromTheEnvironment) {
  EXPECT_EQ(CachePolicy::FromEnvironment().max_bytes, uint64_t{16} << 30) << "default";
  EXPECT_EQ(CachePolicy::FromEnvironment().max_unused_age, std::chrono::hours(24 * 30)) << "default";
  {
    const ScopedEnv size("MODELKIT_COMPILE_CACHE_MAX_SIZE", "1.5G");
    const ScopedEnv age("MODELKIT_COMPILE_CACHE_MAX_AGE_DAYS", "3");
    EXPECT_EQ(CachePolicy::FromEnvironment().max_bytes, uint64_t{3} << 29);
    EXPECT_EQ(CachePolicy::FromEnvironment().max_unused_age, std::chrono::hours(72));
  }
  for (const char* bad : {"", "ten", "5Q", "-1", "1e30"}) {
    const ScopedEnv size("MODELKIT_COMPILE_CACHE_MAX_SIZE", bad);
    try {
      CachePolicy::FromEnvironment();
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(error.what()).find("MODELKIT_COMPILE_CACHE_MAX_SIZE"), std::string::npos);
    }
  }
  for (const char* bad : {"", "2.5", "-1", "x"}) {
    const ScopedEnv age("MODELKIT_COMPILE_CACHE_MAX_AGE_DAYS", bad);
    EXPECT_THROW(CachePolicy::FromEnvironment(), Error) << bad;
  }
}

TEST(CompileCacheEntries, AreArtifactsWithReadableRecordsAndRemoveInPlace) {
  test::TempDir dir;
  const fs::path bundle = dir.path();
  const fs::path derived = bundle / bundle::kDerivedDirName;
  CompileIdentity identity;
  identity.stage = "ctx";
  identity.ep = "SimNpuExecutionProvider";
  const std::string record = ToJson(identity).dump();
  dir.Write("_compiled/ctx_simnpu_ctx.onnx", "artifact");
  dir.Write("_compiled/ctx_simnpu_ctx.onnx.meta.json", record);
  dir.Write("_compiled/iter_simnpu_ctx.onnx", "no record");
  dir.Write("_compiled/lost_simnpu_ctx.onnx.meta.json", record);  // no artifact
  dir.Write("_compiled/bad_simnpu_ctx.onnx", "artifact");
  dir.Write("_compiled/bad_simnpu_ctx.onnx.meta.json", "{not json");
  dir.Write("_compiled/genai_config.json",
            R"({"model": {"decoder": {"pipeline": [{"ctx": {"filename": "ctx_simnpu_ctx.onnx"}}]}}})");
  dir.Write(std::string("_compiled/") + bundle::kCompleteMarker, "");

  const std::vector<CacheEntry> entries = ListCacheEntries(derived);
  ASSERT_EQ(Names(entries), std::vector<std::string>{"ctx_simnpu_ctx.onnx"});
  EXPECT_EQ(entries[0].stage, "ctx");
  EXPECT_EQ(entries[0].bytes, std::string("artifact").size() + record.size());
  EXPECT_EQ(ArtifactsInUse(bundle), std::set<std::string>{"ctx_simnpu_ctx.onnx"});

  // Removing what the derived config loads makes the tree incomplete first: the next run rebuilds it.
  EXPECT_EQ(RemoveCacheEntries(bundle, entries), entries[0].bytes);
  EXPECT_FALSE(fs::exists(derived / "ctx_simnpu_ctx.onnx"));
  EXPECT_FALSE(fs::exists(derived / "ctx_simnpu_ctx.onnx.meta.json"));
  EXPECT_FALSE(bundle::DerivedBundleComplete(bundle));
  EXPECT_TRUE(ListCacheEntries(derived).empty());
}

}  // namespace
}  // namespace modelkit::compile
