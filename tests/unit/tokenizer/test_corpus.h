// The text the tokenizer tests encode: the hand-written samples of tests/tokenizer/corpus.json, lines of Unicode's
// NormalizationTest.txt (Debian unicode-data), words from Debian wamerican, random valid UTF-8, and sentences
// around a tokenizer's own special tokens. Inputs only: expected ids always come from the reference implementation.
#pragma once

#include <string>
#include <vector>

#include "modelkit/tokenizer/tokenizer.h"

namespace modelkit::test {

struct CorpusEntry {
  std::string source;  // where the text comes from, for failure messages
  std::string text;
};

// Everything but the tokenizer-specific part. Missing Debian data files are a test failure (setup installs them).
std::vector<CorpusEntry> SharedCorpus();

// Sentences with `tokenizer`'s special and added tokens inside text.
std::vector<CorpusEntry> SpecialTokenCorpus(const tokenizer::Tokenizer& tokenizer);

}  // namespace modelkit::test
