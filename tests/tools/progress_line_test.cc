// The progress line written to a file (a log, a pipe): plain lines, one per
// change of state. Issue 21: `tune` wrote each line 16 times into a log file,
// once per record of a batch measured together, joined by '\r'.
#include "tools/progress_line.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace tetune {
namespace cli {
namespace {

std::string contents(std::FILE *f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}

TEST(ProgressLineTest, FileGetsOneLinePerStateWithoutCarriageReturns) {
  std::FILE *f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ProgressLine line(f);
  EXPECT_FALSE(line.redraws());
  // A batch of 16 records that leave the state as it was: one line, whatever the clock says.
  for (int i = 0; i < 16; i++) line.update("[1/2] conv 16/64 best 0.5 ms", "0m0" + std::to_string(i % 10) + "s elapsed");
  line.update("[1/2] conv 32/64 best 0.4 ms", "0m09s elapsed");
  line.finish();
  line.update("[2/2] dense 1/8 best - ms", "0m10s elapsed");  // a new task after finish(): its own line
  line.finish();
  EXPECT_EQ(contents(f),
            "[1/2] conv 16/64 best 0.5 ms  0m00s elapsed\n"
            "[1/2] conv 32/64 best 0.4 ms  0m09s elapsed\n"
            "[2/2] dense 1/8 best - ms  0m10s elapsed\n");
  std::fclose(f);
}

}  // namespace
}  // namespace cli
}  // namespace tetune
