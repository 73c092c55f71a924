// Stop sequences over text that arrives in pieces: the emitted text is the whole text cut before the first stop
// sequence, however the pieces split it, and nothing that may begin a stop sequence is emitted early.
#include "modelkit/serve/stop_sequences.h"

#include <gtest/gtest.h>

namespace modelkit::serve {
namespace {

// The text emitted for `pieces`, and whether a stop sequence ended it.
std::pair<std::string, bool> Emitted(const std::vector<std::string>& sequences,
                                     const std::vector<std::string>& pieces) {
  StopSequences stops(sequences);
  std::string text;
  for (const std::string& piece : pieces) text += stops.Add(piece);
  text += stops.Finish();
  return {text, stops.stopped()};
}

TEST(StopSequencesTest, CutsBeforeTheFirstSequenceWhereverThePiecesSplit) {
  const std::string whole = "The answer is 42.\nEND of story";
  for (size_t split = 0; split <= whole.size(); ++split) {
    for (size_t split2 = split; split2 <= whole.size(); ++split2) {
      const auto [text, stopped] =
          Emitted({"END", "\n"}, {whole.substr(0, split), whole.substr(split, split2 - split), whole.substr(split2)});
      EXPECT_EQ(text, "The answer is 42.") << split << "," << split2;
      EXPECT_TRUE(stopped);
    }
  }
}

TEST(StopSequencesTest, ASequenceSplitAcrossPiecesIsFoundAndAHeldPrefixComesOutAtTheEnd) {
  const auto [text, stopped] = Emitted({"STOP"}, {"no ST", "OP here but S", "TO"});
  EXPECT_EQ(text, "no ");  // "no STOP" holds the sequence: cut before it
  EXPECT_TRUE(stopped);
  const auto [tail, tail_stopped] = Emitted({"STOP"}, {"ends with ST", "O"});
  EXPECT_EQ(tail, "ends with STO");  // a held-back prefix is released when generation ends
  EXPECT_FALSE(tail_stopped);
}

TEST(StopSequencesTest, HoldsBackOnlyWhatMayStartASequence) {
  StopSequences stops({"<|end|>"});
  EXPECT_EQ(stops.Add("hello <|e"), "hello ");
  EXPECT_EQ(stops.Add("x"), "<|ex");
  EXPECT_EQ(stops.Add(" done <|end"), " done ");
  EXPECT_EQ(stops.Add("|> more"), "");
  EXPECT_TRUE(stops.stopped());
  EXPECT_EQ(stops.Add("later"), "");
}

TEST(StopSequencesTest, NoSequencesPassEverythingThrough) {
  StopSequences stops({});
  EXPECT_EQ(stops.Add("a"), "a");
  EXPECT_EQ(stops.Add("b"), "b");
  EXPECT_EQ(stops.Finish(), "");
  EXPECT_FALSE(stops.stopped());
}

}  // namespace
}  // namespace modelkit::serve
