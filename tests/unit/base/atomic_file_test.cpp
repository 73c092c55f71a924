#include "modelkit/base/atomic_file.h"

#include <fstream>

#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/temp_dir.h"

namespace modelkit {
namespace {

namespace fs = std::filesystem;

// The message of the UsageError CheckOutputFile throws, or "" when it accepts the path.
std::string Refusal(const fs::path& path, bool overwrite) {
  try {
    CheckOutputFile(path, overwrite);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage);
    return error.what();
  }
  return "";
}

TEST(CheckOutputFile, NewPathsAndReplaceableFilesAreAccepted) {
  test::TempDir dir;
  EXPECT_EQ(Refusal(dir.path() / "new.json", false), "");
  EXPECT_EQ(Refusal(dir.path() / "not" / "yet" / "there.json", false), "");
  std::ofstream(dir.path() / "old.json") << "{}";
  EXPECT_EQ(Refusal(dir.path() / "old.json", true), "");
}

TEST(CheckOutputFile, ExistingFilesFoldersDevicesAndPathsUnderAFileAreRefused) {
  test::TempDir dir;
  std::ofstream(dir.path() / "old.json") << "{}";
  EXPECT_NE(Refusal(dir.path() / "old.json", false).find("pass --overwrite"), std::string::npos);
  EXPECT_NE(Refusal(dir.path(), true).find("(a directory)"), std::string::npos);
  EXPECT_NE(Refusal("/dev/null", true).find("a device, FIFO or socket"), std::string::npos);
  const std::string under = Refusal(dir.path() / "old.json" / "deeper" / "r.json", false);
  EXPECT_NE(under.find("'" + (dir.path() / "old.json").string() + "' is a file, not a folder"), std::string::npos)
      << under;
}

}  // namespace
}  // namespace modelkit
