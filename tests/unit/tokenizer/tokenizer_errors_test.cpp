// Bad tokenizer files and bad input: a modelkit::Error with the right exit code and a message naming the file and
// the JSON path, never a crash.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "modelkit/base/error.h"
#include "modelkit/tokenizer/tokenizer.h"
#include "support/temp_dir.h"

namespace modelkit::test {
namespace {

using tokenizer::Tokenizer;

// A small, valid byte-level BPE document; each test breaks one part of it.
nlohmann::json ValidDocument() {
  return nlohmann::json::parse(R"({
    "version": "1.0", "added_tokens": [{"id": 3, "content": "<s>", "special": true}],
    "normalizer": null,
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": "\\p{L}+"}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
    "post_processor": null, "decoder": {"type": "ByteLevel"},
    "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}})");
}

ExitCode CodeOf(const std::function<void()>& action, std::string& message) {
  try {
    action();
  } catch (const Error& e) {
    message = e.what();
    return e.code();
  }
  message = "(no error)";
  return ExitCode::kOk;
}

void ExpectInvalid(const nlohmann::json& document, const std::string& expected_fragment) {
  std::string message;
  EXPECT_EQ(CodeOf([&] { Tokenizer::FromJson(document.dump(), "", "tok/tokenizer.json"); }, message),
            ExitCode::kInvalidModel)
      << message;
  EXPECT_NE(message.find("tok/tokenizer.json"), std::string::npos) << message;
  EXPECT_NE(message.find(expected_fragment), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
}

TEST(TokenizerErrors, ValidDocumentLoads) {
  const Tokenizer tokenizer = Tokenizer::FromJson(ValidDocument().dump(), "", "tok/tokenizer.json");
  EXPECT_EQ(tokenizer.VocabSize(), 4u);
  EXPECT_EQ(tokenizer.Decode(tokenizer.Encode("ab<s>ba")), "ab<s>ba");
  EXPECT_TRUE(tokenizer.IsSpecial(3));
}

// Ids index dense tables: an id far past the listed tokens is refused before any table grows to it (a hostile file
// with one token of id 2^31 - 1 once made a table of 2^31 entries). Ids a little past them still load.
TEST(TokenizerErrors, TokenIdsFarPastTheListedTokens) {
  nlohmann::json document = ValidDocument();
  document["model"]["vocab"]["b"] = 2147483647;
  ExpectInvalid(document, "far past the vocabulary's 3 entries");
  document = ValidDocument();
  document["added_tokens"][0]["id"] = 2147483647;
  ExpectInvalid(document, "far past the 4 tokens");
  document = ValidDocument();
  document["model"]["vocab"]["b"] = 1000;
  document["added_tokens"][0]["id"] = 2000;
  EXPECT_EQ(Tokenizer::FromJson(document.dump(), "", "tok/tokenizer.json").VocabSize(), 2001u);
}

TEST(TokenizerErrors, MalformedJson) {
  std::string message;
  EXPECT_EQ(CodeOf([] { Tokenizer::FromJson("{\"model\": [1, 2", "", "tok/tokenizer.json"); }, message),
            ExitCode::kInvalidModel);
  EXPECT_NE(message.find("tok/tokenizer.json: malformed JSON"), std::string::npos) << message;
}

TEST(TokenizerErrors, UnknownTypesNameTheJsonPath) {
  nlohmann::json document = ValidDocument();
  document["model"]["type"] = "Unigramm";
  ExpectInvalid(document, "at $.model.type: unsupported model type 'Unigramm'");

  document = ValidDocument();
  document["normalizer"] = {{"type", "Fancy"}};
  ExpectInvalid(document, "at $.normalizer.type: unsupported normalizer type 'Fancy'");

  document = ValidDocument();
  document["pre_tokenizer"]["pretokenizers"][1]["type"] = "Nope";
  ExpectInvalid(document, "at $.pre_tokenizer.pretokenizers[1].type: unsupported pre-tokenizer type 'Nope'");

  document = ValidDocument();
  document["decoder"] = {{"type", "Sequence"}, {"decoders", {{{"type", "Mystery"}}}}};
  ExpectInvalid(document, "at $.decoder.decoders[0].type: unsupported decoder type 'Mystery'");

  document = ValidDocument();
  document["post_processor"] = {{"type", "BertProcessing2"}};
  ExpectInvalid(document, "at $.post_processor.type: unsupported post-processor type");
}

TEST(TokenizerErrors, StructuralProblems) {
  nlohmann::json document = ValidDocument();
  document.erase("model");
  ExpectInvalid(document, "at $: missing required member 'model'");

  document = ValidDocument();
  document["model"]["merges"] = {"a c"};
  ExpectInvalid(document, "at $.model.merges[0]: merge 'a' + 'c' uses a token that is not in the vocabulary");

  document = ValidDocument();
  document["model"]["vocab"]["a"] = "zero";
  ExpectInvalid(document, "at $.model.vocab.a: expected an integer");

  document = ValidDocument();
  document["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(unclosed";
  ExpectInvalid(document, "at $.pre_tokenizer.pretokenizers[0].pattern.Regex: regular expression does not compile");

  document = ValidDocument();
  document["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Sideways";
  ExpectInvalid(document, "unknown split behavior 'Sideways'");

  document = ValidDocument();
  document["added_tokens"][0]["id"] = "x";
  ExpectInvalid(document, "at $.added_tokens[0].id: expected an integer");
}

TEST(TokenizerErrors, BadTokenizerConfig) {
  std::string message;
  EXPECT_EQ(
      CodeOf([] { Tokenizer::FromJson(ValidDocument().dump(), "{\"bos_token\": 5}", "t.json", "c.json"); }, message),
      ExitCode::kInvalidModel);
  EXPECT_NE(message.find("c.json at $.bos_token"), std::string::npos) << message;
}

TEST(TokenizerErrors, MissingDirectoryOrFileIsUsageError) {
  std::string message;
  EXPECT_EQ(CodeOf([] { Tokenizer::Load("/nonexistent/tokenizer/dir"); }, message), ExitCode::kUsage);
  EXPECT_NE(message.find("/nonexistent/tokenizer/dir"), std::string::npos) << message;
  TempDir empty;
  EXPECT_EQ(CodeOf([&] { Tokenizer::Load(empty.path()); }, message), ExitCode::kUsage);
  EXPECT_NE(message.find("tokenizer.json"), std::string::npos) << message;
}

TEST(TokenizerErrors, InvalidUtf8InputNamesTheOffset) {
  const Tokenizer tokenizer = Tokenizer::FromJson(ValidDocument().dump(), "", "tok/tokenizer.json");
  for (const std::string& bad : {std::string("ab\xC3"), std::string("ab\xC3\x28"), std::string("ab\xED\xA0\x80"),
                                 std::string("ab\xF8\x88\x80\x80\x80"), std::string("ab\xC0\xAF")}) {
    std::string message;
    EXPECT_EQ(CodeOf([&] { tokenizer.Encode(bad); }, message), ExitCode::kUsage);
    EXPECT_NE(message.find("not valid UTF-8"), std::string::npos) << message;
    EXPECT_NE(message.find("byte offset 2"), std::string::npos) << message;
  }
}

TEST(TokenizerErrors, UnknownIdOnDecode) {
  const Tokenizer tokenizer = Tokenizer::FromJson(ValidDocument().dump(), "", "tok/tokenizer.json");
  std::string message;
  const std::vector<int32_t> ids = {0, 99};
  EXPECT_EQ(CodeOf([&] { tokenizer.Decode(ids); }, message), ExitCode::kUsage);
  EXPECT_NE(message.find("token id 99"), std::string::npos) << message;
}

}  // namespace
}  // namespace modelkit::test
