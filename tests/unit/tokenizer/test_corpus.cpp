#include "test_corpus.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"
#include "support/process.h"

namespace modelkit::test {
namespace {

constexpr const char* kNormalizationTest = "/usr/share/unicode/NormalizationTest.txt.bz2";
constexpr const char* kWords = "/usr/share/dict/words";

void AppendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// Every 25th test line of NormalizationTest.txt: its five columns (source, NFC, NFD, NFKC, NFKD) as text.
void AddNormalizationTest(std::vector<CorpusEntry>& corpus) {
  const ProcessResult bzcat = RunProcess({MODELKIT_BZCAT, kNormalizationTest});
  ASSERT_EQ(bzcat.exit_code, 0) << "cannot read " << kNormalizationTest
                                << " (install Debian's unicode-data and bzip2: scripts/setup.sh): "
                                << bzcat.stderr_text;
  std::istringstream lines(bzcat.stdout_text);
  std::string line;
  size_t index = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    if (index++ % 25 != 0) continue;
    const std::vector<std::string> columns = Split(line, ';');
    std::string text;
    for (size_t column = 0; column < 5 && column < columns.size(); ++column) {
      if (column) text += ' ';
      for (const std::string& hex : Split(Trim(columns[column]), ' ')) {
        if (!hex.empty()) AppendUtf8(text, static_cast<char32_t>(std::stoul(hex, nullptr, 16)));
      }
    }
    corpus.push_back({"NormalizationTest.txt line " + std::to_string(index), text});
  }
}

// Every 50th word of wamerican, alone and as sentences of 12 words.
void AddWords(std::vector<CorpusEntry>& corpus) {
  std::ifstream file(kWords);
  ASSERT_TRUE(file) << "cannot read " << kWords << " (install Debian's wamerican: scripts/setup.sh)";
  std::string word;
  std::vector<std::string> words;
  for (size_t index = 0; std::getline(file, word); ++index) {
    if (index % 50 == 0) words.push_back(word);
  }
  for (const std::string& w : words) corpus.push_back({"wamerican", w});
  for (size_t i = 0; i + 12 <= words.size(); i += 12) {
    std::vector<std::string> sentence(words.begin() + static_cast<ptrdiff_t>(i),
                                      words.begin() + static_cast<ptrdiff_t>(i + 12));
    corpus.push_back({"wamerican sentence", Join(sentence, " ")});
  }
}

// Random strings of valid UTF-8 from a fixed seed: mostly ASCII and spaces, then Latin, Cyrillic, CJK, symbols,
// emoji, combining marks, controls and anything else that is a scalar value.
void AddRandomText(std::vector<CorpusEntry>& corpus) {
  std::mt19937 random(20261203);
  const std::vector<std::pair<char32_t, char32_t>> ranges = {
      {0x20, 0x7E},     {0x20, 0x20},     {0x0A, 0x0A},       {0x00, 0x1F},       {0x80, 0x24F},    {0x300, 0x36F},
      {0x400, 0x4FF},   {0x600, 0x6FF},   {0x900, 0x97F},     {0x2000, 0x2BFF},   {0x3000, 0x30FF}, {0x4E00, 0x9FFF},
      {0xAC00, 0xD7A3}, {0xE000, 0xFFFD}, {0x1F300, 0x1FAFF}, {0x10000, 0x10FFFF}};
  std::uniform_int_distribution<size_t> pick_range(0, ranges.size() - 1);
  std::uniform_int_distribution<int> length(1, 40);
  for (int n = 0; n < 300; ++n) {
    std::string text;
    const int count = length(random);
    for (int i = 0; i < count; ++i) {
      const auto [low, high] = ranges[random() % 3 == 0 ? 0 : pick_range(random)];
      char32_t c = std::uniform_int_distribution<char32_t>(low, high)(random);
      if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
      AppendUtf8(text, c);
    }
    corpus.push_back({"random #" + std::to_string(n), text});
  }
}

}  // namespace

std::vector<CorpusEntry> SharedCorpus() {
  std::vector<CorpusEntry> corpus;
  const nlohmann::json samples =
      nlohmann::json::parse(ReadTextFile(std::string(MODELKIT_TOKENIZER_TEST_DATA) + "/corpus.json", "test corpus"));
  for (size_t i = 0; i < samples.size(); ++i) corpus.push_back({"corpus.json #" + std::to_string(i), samples[i]});
  AddNormalizationTest(corpus);
  AddWords(corpus);
  AddRandomText(corpus);
  return corpus;
}

std::vector<CorpusEntry> SpecialTokenCorpus(const tokenizer::Tokenizer& tokenizer) {
  std::vector<std::string> specials, added;
  for (int32_t id = 0; static_cast<size_t>(id) < tokenizer.VocabSize(); ++id) {
    const auto token = tokenizer.IdToToken(id);
    if (!token) continue;
    if (tokenizer.IsSpecial(id)) {
      specials.emplace_back(*token);
    } else if (token->size() > 1 && token->front() == '<' && token->back() == '>') {
      added.emplace_back(*token);
    }
  }
  std::vector<CorpusEntry> corpus;
  const auto add = [&](const std::vector<std::string>& tokens, const std::string& kind) {
    for (size_t i = 0; i < tokens.size() && i < 12; ++i) {
      const std::string& t = tokens[i];
      corpus.push_back({kind + " " + t, t});
      corpus.push_back({kind + " " + t, "Hello" + t + "world " + t + " x\n" + t + "\n" + t + t});
      corpus.push_back({kind + " " + t, " " + t + "user\nWhat is 2+2?" + t + " \n"});
    }
  };
  add(specials, "special");
  add(added, "added");
  if (tokenizer.config().bos_token && tokenizer.config().eos_token) {
    corpus.push_back({"bos/eos", *tokenizer.config().bos_token + "Hi there!" + *tokenizer.config().eos_token});
  }
  return corpus;
}

}  // namespace modelkit::test
