// Recognising a bundle directory: the messages a user sees for a wrong -m.
#include "modelkit/bundle/genai_config.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

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

// Stage names become parts of file names: one that could name another directory is refused, in both pipeline forms.
TEST(ForEachPipelineStage, RefusesStageNamesThatArePaths) {
  for (const std::string& name :
       std::vector<std::string>{"../../../evil", "/abs/dir/evil", "..", ".", "", "a\\b", std::string(129, 'x')}) {
    for (const bool array_form : {true, false}) {
      Json stage = {{"filename", "s.onnx"}};
      Json config = {{"model", {{"decoder", {{"pipeline", Json::object()}}}}}};
      if (array_form) {
        config["model"]["decoder"]["pipeline"] = Json::array({Json{{name, stage}}});
      } else {
        config["model"]["decoder"]["pipeline"][name] = stage;
      }
      try {
        ForEachPipelineStage(std::as_const(config), [](const std::string&, const Json&) { FAIL() << "visited"; });
        ADD_FAILURE() << "accepted stage name '" << name << "'";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
        EXPECT_NE(std::string(e.what()).find("stage name '" + name + "'"), std::string::npos) << e.what();
      }
    }
  }
  Json config = {{"model", {{"decoder", {{"pipeline", Json::array({Json{{"lm_head.v2-final", Json::object()}}})}}}}}};
  std::vector<std::string> visited;
  ForEachPipelineStage(std::as_const(config), [&](const std::string& name, const Json&) { visited.push_back(name); });
  EXPECT_EQ(visited, std::vector<std::string>{"lm_head.v2-final"});
}

}  // namespace
}  // namespace modelkit::bundle
