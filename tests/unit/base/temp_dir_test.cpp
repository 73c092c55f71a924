#include "modelkit/base/temp_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <utility>

#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;

TEST(ScopedTempDir, MadeUnderParentWithPrefixAndRemovedWithItsContents) {
  test::TempDir parent;
  fs::path made;
  {
    std::optional<ScopedTempDir> dir = ScopedTempDir::Create(parent.path(), "_compiled.tmp-");
    ASSERT_TRUE(dir.has_value());
    made = dir->path();
    EXPECT_EQ(made.parent_path(), parent.path());
    const std::string name = made.filename().string();
    ASSERT_EQ(name.size(), std::string("_compiled.tmp-").size() + 6);
    EXPECT_EQ(name.rfind("_compiled.tmp-", 0), 0u);
    EXPECT_TRUE(fs::is_directory(made));
    struct stat st {};
    ASSERT_EQ(stat(made.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    fs::create_directories(made / "a" / "b");
    std::ofstream(made / "a" / "b" / "file") << "x";
  }
  EXPECT_FALSE(fs::exists(made));
  EXPECT_TRUE(fs::is_directory(parent.path()));
}

TEST(ScopedTempDir, NamesAreUnique) {
  test::TempDir parent;
  std::optional<ScopedTempDir> a = ScopedTempDir::Create(parent.path(), "x-");
  std::optional<ScopedTempDir> b = ScopedTempDir::Create(parent.path(), "x-");
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->path(), b->path());
}

TEST(ScopedTempDir, MoveTransfersOwnership) {
  test::TempDir parent;
  std::optional<ScopedTempDir> first = ScopedTempDir::Create(parent.path(), "m-");
  ASSERT_TRUE(first);
  const fs::path made = first->path();
  {
    ScopedTempDir moved = std::move(*first);
    EXPECT_EQ(moved.path(), made);
    EXPECT_TRUE(first->path().empty());
    first.reset();  // the moved-from object removes nothing
    EXPECT_TRUE(fs::is_directory(made));
  }
  EXPECT_FALSE(fs::exists(made));

  std::optional<ScopedTempDir> target = ScopedTempDir::Create(parent.path(), "t-");
  std::optional<ScopedTempDir> source = ScopedTempDir::Create(parent.path(), "s-");
  ASSERT_TRUE(target && source);
  const fs::path old_target = target->path(), source_path = source->path();
  *target = std::move(*source);  // the target's own directory goes, the source's is now the target's
  EXPECT_FALSE(fs::exists(old_target));
  EXPECT_EQ(target->path(), source_path);
  source.reset();
  EXPECT_TRUE(fs::is_directory(source_path));
  target.reset();
  EXPECT_FALSE(fs::exists(source_path));
}

TEST(ScopedTempDir, ReleaseKeepsTheDirectory) {
  test::TempDir parent;
  fs::path kept;
  {
    std::optional<ScopedTempDir> dir = ScopedTempDir::Create(parent.path(), "r-");
    ASSERT_TRUE(dir);
    const fs::path made = dir->path();
    kept = dir->release();
    EXPECT_EQ(kept, made);
    EXPECT_TRUE(dir->path().empty());
  }
  EXPECT_TRUE(fs::is_directory(kept));
}

TEST(ScopedTempDir, MissingParentIsNulloptWithErrno) {
  test::TempDir parent;
  errno = 0;
  EXPECT_FALSE(ScopedTempDir::Create(parent.path() / "missing", "p-").has_value());
  EXPECT_EQ(errno, ENOENT);
}

TEST(MadeFolders, FoldersMadeForAnOutputGoAgainUnlessKept) {
  test::TempDir root;
  const fs::path deep = root.path() / "a" / "b" / "c";
  {
    MadeFolders made(deep);
    EXPECT_TRUE(fs::is_directory(deep));
  }
  EXPECT_FALSE(fs::exists(root.path() / "a")) << "every folder it made is removed";
  {
    MadeFolders made(deep);
    made.Keep();
  }
  EXPECT_TRUE(fs::is_directory(deep));
}

TEST(MadeFolders, FoldersThatExistedOrHoldFilesStay) {
  test::TempDir root;
  fs::create_directories(root.path() / "a");
  {
    MadeFolders made(root.path() / "a" / "b" / "c");
    std::ofstream(root.path() / "a" / "b" / "kept.txt") << "x";
  }
  EXPECT_FALSE(fs::exists(root.path() / "a" / "b" / "c"));
  EXPECT_TRUE(fs::exists(root.path() / "a" / "b" / "kept.txt")) << "a folder that is not empty stays";
  { MadeFolders made(root.path() / "a"); }
  EXPECT_TRUE(fs::is_directory(root.path() / "a")) << "it existed before";
}

TEST(MadeFolders, AFolderUnderAFileIsARuntimeErrorNamingIt) {
  test::TempDir root;
  std::ofstream(root.path() / "file") << "x";
  try {
    MadeFolders made(root.path() / "file" / "sub");
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kRuntimeFailure);
    EXPECT_NE(std::string(error.what()).find((root.path() / "file" / "sub").string()), std::string::npos);
  }
}

}  // namespace
}  // namespace modelkit
