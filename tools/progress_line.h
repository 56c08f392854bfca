// The progress line of `tune` and `tune-op`. On a terminal it is redrawn in
// place ("\r"); written to a file or a pipe (a log) it becomes one plain line
// per event instead, with no "\r" and no line repeated (a batch of records
// measured together reports the same state once per record).
#pragma once

#include <cstdio>
#include <string>

namespace tetune {
namespace cli {

class ProgressLine {
 public:
  /** Writes to `out`; redraws in place when isatty(out). */
  explicit ProgressLine(std::FILE *out = stderr);
  /**
   * Shows `state` followed by `clock` (elapsed time, ETA). Off a terminal the
   * line is written only when `state` differs from the last one written, so
   * that the clock alone never repeats a line.
   */
  void update(const std::string &state, const std::string &clock);
  /** Ends a line redrawn in place with a newline (nothing otherwise); the next update starts a new line. */
  void finish();
  bool redraws() const { return tty_; }

 private:
  std::FILE *out_;
  bool tty_;
  bool open_ = false;      // a redrawn line is on the terminal without its newline
  size_t last_width_ = 0;  // characters of that line, blanked when a shorter one replaces it
  std::string last_state_;
};

}  // namespace cli
}  // namespace tetune
