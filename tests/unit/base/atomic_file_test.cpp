#include "modelkit/base/atomic_file.h"

#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

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

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WriteNewFileAtomically, TakesTheNameThenNumberedNamesAndNeverReplaces) {
  test::TempDir dir;
  const fs::path wanted = dir.path() / "reports" / "20261206-180000.json";
  EXPECT_EQ(WriteNewFileAtomically(wanted, "first"), wanted);
  EXPECT_EQ(WriteNewFileAtomically(wanted, "second"), dir.path() / "reports" / "20261206-180000-2.json");
  EXPECT_EQ(WriteNewFileAtomically(wanted, "third"), dir.path() / "reports" / "20261206-180000-3.json");
  EXPECT_EQ(ReadAll(wanted), "first");
  EXPECT_EQ(ReadAll(dir.path() / "reports" / "20261206-180000-3.json"), "third");
  // Only the three reports: no temporary file is left beside them.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "reports"), fs::directory_iterator()), 3);
}

TEST(WriteNewFileAtomically, ConcurrentWritersEachGetTheirOwnFile) {
  test::TempDir dir;
  const fs::path wanted = dir.path() / "r.json";
  constexpr int kWriters = 8;
  std::vector<fs::path> written(kWriters);
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] { written[i] = WriteNewFileAtomically(wanted, "writer " + std::to_string(i)); });
  }
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(std::set<fs::path>(written.begin(), written.end()).size(), static_cast<size_t>(kWriters));
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(ReadAll(written[i]), "writer " + std::to_string(i)) << written[i];
}

TEST(WriteNewFileAtomically, AnUnwritableFolderIsNamed) {
  test::TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  try {
    WriteNewFileAtomically(dir.path() / "file" / "r.json", "x");
    ADD_FAILURE() << "writing under a file succeeded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find((dir.path() / "file").string()), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace modelkit
