#include "tools/progress_line.h"

#include <unistd.h>

namespace tetune {
namespace cli {

ProgressLine::ProgressLine(std::FILE *out) : out_(out), tty_(::isatty(::fileno(out)) == 1) {}

void ProgressLine::update(const std::string &state, const std::string &clock) {
  std::string line = clock.empty() ? state : state + "  " + clock;
  if (tty_) {
    size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
    std::fprintf(out_, "\r%s%s", line.c_str(), std::string(pad, ' ').c_str());
    last_width_ = line.size();
    open_ = true;
  } else {
    if (state == last_state_) return;
    std::fprintf(out_, "%s\n", line.c_str());
  }
  last_state_ = state;
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (open_) std::fprintf(out_, "\n");
  std::fflush(out_);
  open_ = false;
  last_width_ = 0;
  last_state_.clear();
}

}  // namespace cli
}  // namespace tetune
