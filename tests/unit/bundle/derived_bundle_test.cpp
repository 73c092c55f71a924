// The derived bundle writer on real files: mirroring, atomic replacement, locking, and leftovers of killed runs.
#include "modelkit/bundle/derived_bundle.h"

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/temp_dir.h"

namespace modelkit::bundle {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class DerivedBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("bundle/genai_config.json", R"({"model": {"type": "decoder-pipeline"}})");
    dir_.Write("bundle/ctx.onnx", "ctx-graph");
    dir_.Write("bundle/ctx.onnx.data", "ctx-weights");
    dir_.Write("bundle/iter.onnx", "iter-graph");
    dir_.Write("bundle/tokenizer.json", "{}");
    dir_.Write("bundle/.hidden", "x");
    dir_.Write("bundle/subdir/nested.txt", "not mirrored");
  }
  fs::path Bundle() const { return dir_.path() / "bundle"; }
  fs::path Derived() const { return Bundle() / kDerivedDirName; }

  DerivedBundleContents Contents(const std::string& marker) const {
    DerivedBundleContents contents;
    contents.config = Json::parse(R"({"model": {"type": "decoder-pipeline", "run": ")" + marker + R"("}})");
    return contents;
  }

  test::TempDir dir_;
};

TEST_F(DerivedBundle, MirrorsTopLevelFilesAndWritesTheConfigAndMarkerLast) {
  DerivedBundleContents contents = Contents("a");
  contents.skipped_sources = {"ctx.onnx", "ctx.onnx.data"};
  contents.artifacts["context_simnpu_ctx.onnx"] = dir_.Write("staging/compiled.onnx", "compiled-ctx");
  BundleLock lock(Bundle());
  const fs::path derived = WriteDerivedBundle(Bundle(), contents);
  EXPECT_EQ(derived, Derived());
  EXPECT_EQ(Names(derived), (std::vector<std::string>{kCompleteMarker, "context_simnpu_ctx.onnx", "genai_config.json",
                                                      "iter.onnx", "tokenizer.json"}));
  EXPECT_TRUE(fs::is_symlink(derived / "iter.onnx"));
  EXPECT_EQ(fs::read_symlink(derived / "iter.onnx"), "../iter.onnx") << "relative, so the bundle can move";
  EXPECT_TRUE(fs::equivalent(derived / "iter.onnx", Bundle() / "iter.onnx"));
  EXPECT_EQ(Read(derived / "context_simnpu_ctx.onnx"), "compiled-ctx");
  EXPECT_EQ(Json::parse(Read(derived / "genai_config.json")).at("model").at("run"), "a");
  EXPECT_EQ(Json::parse(Read(Bundle() / "genai_config.json")).at("model").contains("run"), false)
      << "the original config is untouched";
  EXPECT_TRUE(DerivedBundleComplete(Bundle()));
}

TEST_F(DerivedBundle, ARewriteReplacesEverythingAndDropsStaleEntries) {
  BundleLock lock(Bundle());
  DerivedBundleContents first = Contents("first");
  first.artifacts["context_simnpu_ctx.onnx"] = dir_.Write("staging/a.onnx", "A");
  WriteDerivedBundle(Bundle(), first);
  fs::remove(Bundle() / "tokenizer.json");

  DerivedBundleContents second = Contents("second");
  second.artifacts["iterator_simnpu_ctx.onnx"] = dir_.Write("staging/b.onnx", "B");
  // An artifact of the previous write, reused: it is carried over (hard link) before the old tree goes.
  second.artifacts["context_simnpu_ctx.onnx"] = Derived() / "context_simnpu_ctx.onnx";
  WriteDerivedBundle(Bundle(), second);
  EXPECT_EQ(Json::parse(Read(Derived() / "genai_config.json")).at("model").at("run"), "second");
  EXPECT_EQ(Read(Derived() / "context_simnpu_ctx.onnx"), "A");
  EXPECT_EQ(Read(Derived() / "iterator_simnpu_ctx.onnx"), "B");
  EXPECT_FALSE(fs::exists(Derived() / "tokenizer.json")) << "stale mirrored entries are removed";
  for (const std::string& name : Names(Bundle())) {
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
    EXPECT_EQ(name.find(".old-"), std::string::npos) << name;
  }
}

TEST_F(DerivedBundle, AFailedWriteLeavesThePreviousBundleAndNoTemporary) {
  BundleLock lock(Bundle());
  WriteDerivedBundle(Bundle(), Contents("good"));
  DerivedBundleContents broken = Contents("broken");
  broken.artifacts["x_ctx.onnx"] = dir_.path() / "does-not-exist.onnx";
  EXPECT_THROW(WriteDerivedBundle(Bundle(), broken), Error);
  EXPECT_EQ(Json::parse(Read(Derived() / "genai_config.json")).at("model").at("run"), "good");
  EXPECT_TRUE(DerivedBundleComplete(Bundle()));
  for (const std::string& name : Names(Bundle())) EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}

TEST_F(DerivedBundle, LeftoversOfAKilledRunAreNotTrustedAndAreCleanedUp) {
  fs::create_directories(Bundle() / "_compiled.tmp-abc123");
  dir_.Write("bundle/_compiled.tmp-abc123/genai_config.json", "{}");
  fs::create_directories(Derived());
  dir_.Write("bundle/_compiled/genai_config.json", "{}");  // no completion marker: a half-written tree
  EXPECT_FALSE(DerivedBundleComplete(Bundle()));
  BundleLock lock(Bundle());
  RemoveStaleDerivedTemporaries(Bundle());
  EXPECT_FALSE(fs::exists(Bundle() / "_compiled.tmp-abc123"));
  WriteDerivedBundle(Bundle(), Contents("fresh"));
  EXPECT_TRUE(DerivedBundleComplete(Bundle()));
}

// Four processes write at once; the lock serialises them and the result is one consistent, complete bundle.
TEST_F(DerivedBundle, ConcurrentWritersLeaveOneConsistentBundle) {
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      int status = 0;
      try {
        for (int round = 0; round < 5; ++round) {
          BundleLock lock(Bundle());
          DerivedBundleContents contents = Contents("writer-" + std::to_string(i));
          const fs::path staged = dir_.path() / ("staging-" + std::to_string(i) + "-" + std::to_string(round));
          std::ofstream(staged) << "artifact of writer " << i;
          contents.artifacts["context_simnpu_ctx.onnx"] = staged;
          WriteDerivedBundle(Bundle(), contents);
        }
      } catch (...) {
        status = 1;
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ASSERT_TRUE(DerivedBundleComplete(Bundle()));
  const std::string run = Json::parse(Read(Derived() / "genai_config.json")).at("model").at("run");
  const std::string writer = run.substr(std::string("writer-").size());
  EXPECT_EQ(Read(Derived() / "context_simnpu_ctx.onnx"), "artifact of writer " + writer)
      << "config and artifacts come from the same write";
  for (const std::string& name : Names(Bundle())) EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}

}  // namespace
}  // namespace modelkit::bundle
