#include "modelkit/base/text_table.h"

#include <gtest/gtest.h>

namespace modelkit {
namespace {

TEST(TextTable, PadsColumnsToWidestCellAndTrimsTrailingSpace) {
  TextTable table({"EP", "USABLE", "NOTE"});
  table.AddRow({"CPUExecutionProvider", "yes", ""});
  table.AddRow({"cuda", "no", "missing library"});
  EXPECT_EQ(table.Render(),
            "  EP                    USABLE  NOTE\n"
            "  CPUExecutionProvider  yes\n"
            "  cuda                  no      missing library\n");
}

TEST(TextTable, WidthsCountCharactersNotBytes) {
  TextTable table({"Time", "Next"});
  table.AddRow({"3.81 µs", "x"});
  table.AddRow({"12.0 ms", "y"});
  EXPECT_EQ(table.Render(0), "Time     Next\n3.81 µs  x\n12.0 ms  y\n");
}

TEST(TextTable, MissingTrailingCellsAreBlank) {
  TextTable table({"A", "B"});
  table.AddRow({"x"});
  EXPECT_EQ(table.Render(0), "A  B\nx\n");
}

}  // namespace
}  // namespace modelkit
