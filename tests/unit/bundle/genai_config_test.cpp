// Recognising a bundle directory: the messages a user sees for a wrong -m.
#include "modelkit/bundle/genai_config.h"

#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/temp_dir.h"

namespace modelkit::bundle {
namespace {

std::string UsageMessage(const std::filesystem::path& dir, std::string_view flag_context) {
  try {
    RequireBundleDirectory(dir, flag_context);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  return "no error";
}

TEST(RequireBundleDirectory, AcceptsADirectoryHoldingGenaiConfig) {
  test::TempDir dir;
  dir.Write("genai_config.json", "{}");
  EXPECT_NO_THROW(RequireBundleDirectory(dir.path(), "-m"));
}

TEST(RequireBundleDirectory, MissingDirectoryNamesThePathAndWhatExpectedIt) {
  test::TempDir dir;
  const std::string missing = (dir.path() / "nope").string();
  EXPECT_EQ(UsageMessage(dir.path() / "nope", "-m"),
            "bundle directory not found: '" + missing + "' (-m expects a directory holding genai_config.json)");
  EXPECT_EQ(
      UsageMessage(dir.path() / "nope", "--runtime genai"),
      "bundle directory not found: '" + missing + "' (--runtime genai expects a directory holding genai_config.json)");
  EXPECT_EQ(UsageMessage(dir.path() / "nope", ""), "bundle directory not found: '" + missing + "'");
  const std::filesystem::path file = dir.Write("model.onnx", "x");  // a file is not a bundle directory either
  EXPECT_EQ(UsageMessage(file, ""), "bundle directory not found: '" + file.string() + "'");
}

TEST(RequireBundleDirectory, DirectoryWithoutGenaiConfigSaysHowToMakeOne) {
  test::TempDir dir;
  const std::string expected = "genai_config.json not found in '" + dir.path().string() +
                               "'; a genai bundle needs one (make one with 'modelkit build')";
  EXPECT_EQ(UsageMessage(dir.path(), "-m"), expected);
  std::filesystem::create_directory(dir.path() / "genai_config.json");  // a directory of that name is no config
  EXPECT_EQ(UsageMessage(dir.path(), ""), expected);
}

TEST(ReadGenaiConfig, ChecksTheBundleDirectoryFirst) {
  test::TempDir dir;
  try {
    ReadGenaiConfig(dir.path() / "nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(std::string(e.what()), "bundle directory not found: '" + (dir.path() / "nope").string() + "'");
  }
}

}  // namespace
}  // namespace modelkit::bundle
