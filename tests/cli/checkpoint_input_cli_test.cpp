// `perf` and `generate` given a Hugging Face checkpoint directory or a hub model id as -m: built once into
// modelkit's bundle cache (MODELKIT_BUNDLE_CACHE here), reused while the checkpoint is unchanged, rebuilt on
// --rebuild or a changed file; a model id resolved offline in a hub-cache layout (HF_HOME); the tokens equal those of
// the bundle `modelkit build --checkpoint` writes.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "builder/random_weights.h"
#include "support/build_fixtures.h"
#include "support/cli.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

class CheckpointInputCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = TinySpec(builder::Arch::kQwen3);
    // A hub cache: blobs, a snapshot of links into them, refs/main naming the snapshot.
    const fs::path model = tmp_.path() / "hf" / "hub" / "models--tiny-org--Tiny-LM";
    WriteHfCheckpoint(model / "blobs-staging", spec_, builder::RandomWeights(spec_, 3), "BF16");
    fs::create_directories(model / "blobs");
    fs::create_directories(model / "snapshots" / "abc123");
    for (const fs::directory_entry& file : fs::directory_iterator(model / "blobs-staging")) {
      const std::string name = file.path().filename().string();
      fs::rename(file.path(), model / "blobs" / ("blob-" + name));
      fs::create_symlink("../../blobs/blob-" + name, model / "snapshots" / "abc123" / name);
    }
    fs::remove(model / "blobs-staging");
    fs::create_directories(model / "refs");
    std::ofstream(model / "refs" / "main") << "abc123\n";
    snapshot_ = model / "snapshots" / "abc123";
    env_ = {{"HF_HOME", (tmp_.path() / "hf").string()}, {"MODELKIT_BUNDLE_CACHE", (tmp_.path() / "bundles").string()}};
  }

  ProcessResult Generate(const std::string& model, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"generate",         "-m", model,          "--prompt-ids", "1,5,9,2",
                                     "--max-new-tokens", "5",  "--ignore-eos", "-f",           "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunModelkit(args, env_);
  }
  static Json Ids(const ProcessResult& result) {
    EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
    return result.exit_code == 0 ? Json::parse(result.stdout_text)["generated_ids"] : Json();
  }
  static bool Built(const ProcessResult& result) {
    return result.stderr_text.find("note: building a bundle from") != std::string::npos;
  }
  std::vector<fs::path> CachedBundles() {
    std::vector<fs::path> bundles;
    for (const fs::directory_entry& entry : fs::directory_iterator(tmp_.path() / "bundles")) {
      if (fs::exists(entry.path() / "genai_config.json")) bundles.push_back(entry.path());
    }
    return bundles;
  }

  TempDir tmp_;
  builder::ModelSpec spec_;
  fs::path snapshot_;
  std::map<std::string, std::string> env_;
};

TEST_F(CheckpointInputCliTest, ModelIdIsBuiltOnceReusedAndRebuiltWhenAskedOrChanged) {
  // The reference: the bundle `modelkit build` writes from the same checkpoint.
  const fs::path reference = tmp_.path() / "reference";
  ASSERT_EQ(RunModelkit({"build", "--checkpoint", snapshot_.string(), "-o", reference.string()}).exit_code, 0);
  const Json expected = Ids(Generate(reference.string()));
  ASSERT_EQ(expected.size(), 5u);

  const ProcessResult first = Generate("tiny-org/Tiny-LM");
  EXPECT_EQ(Ids(first), expected);
  EXPECT_TRUE(Built(first)) << first.stderr_text;
  ASSERT_EQ(CachedBundles().size(), 1u);
  const fs::path bundle = CachedBundles().front();
  const auto built_at = fs::last_write_time(bundle / "genai_config.json");

  const ProcessResult second = Generate("tiny-org/Tiny-LM");
  EXPECT_EQ(Ids(second), expected);
  EXPECT_FALSE(Built(second)) << "the second run built again: " << second.stderr_text;
  EXPECT_EQ(fs::last_write_time(bundle / "genai_config.json"), built_at);

  // perf takes the model id too (--runtime auto picks genai), reusing the same bundle.
  const ProcessResult perf =
      RunModelkit({"perf", "-m", "tiny-org/Tiny-LM", "--prompt-ids", "1,5,9,2", "--iterations", "1", "--warmup", "0",
                   "--max-new-tokens", "3", "-f", "json", "-o", (tmp_.path() / "r.json").string()},
                  env_);
  ASSERT_EQ(perf.exit_code, 0) << perf.stderr_text;
  EXPECT_FALSE(Built(perf)) << perf.stderr_text;
  EXPECT_EQ(Json::parse(perf.stdout_text)["benchmark_info"]["runtime"], "genai");

  const ProcessResult rebuilt = Generate("tiny-org/Tiny-LM", {"--rebuild"});
  EXPECT_EQ(Ids(rebuilt), expected);
  EXPECT_TRUE(Built(rebuilt)) << rebuilt.stderr_text;
  EXPECT_NE(rebuilt.stderr_text.find("(--rebuild)"), std::string::npos) << rebuilt.stderr_text;

  // A changed safetensors file (other weights, same name): rebuilt, and the tokens follow the new weights.
  const fs::path other = tmp_.path() / "other";
  WriteHfCheckpoint(other, spec_, builder::RandomWeights(spec_, 4), "BF16");
  fs::copy_file(other / "model.safetensors", fs::canonical(snapshot_ / "model.safetensors"),
                fs::copy_options::overwrite_existing);
  const ProcessResult changed = Generate("tiny-org/Tiny-LM");
  EXPECT_TRUE(Built(changed)) << changed.stderr_text;
  EXPECT_NE(changed.stderr_text.find("model.safetensors changed"), std::string::npos) << changed.stderr_text;
  EXPECT_EQ(Ids(changed), Ids(Generate(other.string()))) << "the checkpoint directory itself as -m";

  // Other build options are another bundle, kept beside the first.
  const ProcessResult int4 = Generate("tiny-org/Tiny-LM", {"--precision", "int4"});
  EXPECT_TRUE(Built(int4)) << int4.stderr_text;
  EXPECT_EQ(Ids(int4).size(), 5u);
  EXPECT_GE(CachedBundles().size(), 3u);  // the snapshot fp32, the snapshot int4, the `other` directory
}

TEST_F(CheckpointInputCliTest, MissingModelIdAndMisplacedBuildFlagsAreUsageErrors) {
  const ProcessResult missing = Generate("nobody/Nothing-7B");
  ExpectErrorLine(missing, 2, "model id 'nobody/Nothing-7B' is not in the local Hugging Face hub cache");
  EXPECT_NE(missing.stderr_text.find((tmp_.path() / "hf" / "hub" / "models--nobody--Nothing-7B").string()),
            std::string::npos)
      << "the message says where it looked: " << missing.stderr_text;
  EXPECT_NE(missing.stderr_text.find("huggingface-cli download nobody/Nothing-7B"), std::string::npos);
  ExpectErrorLine(RunModelkit({"perf", "-m", "nobody/Nothing-7B"}, env_), 2, "not in the local Hugging Face");

  const fs::path reference = tmp_.path() / "reference";
  ASSERT_EQ(RunModelkit({"build", "--checkpoint", snapshot_.string(), "-o", reference.string()}).exit_code, 0);
  ExpectErrorLine(Generate(reference.string(), {"--precision", "int4"}), 2, "is a bundle already");
  EXPECT_FALSE(fs::exists(tmp_.path() / "bundles"));
}

}  // namespace
}  // namespace modelkit::test
