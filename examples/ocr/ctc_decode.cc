#include "examples/ocr/ctc_decode.h"

#include <fstream>
#include <sstream>

#include "base/errors.h"

namespace tetune {
namespace ocr {

CharDict load_dict(const std::string &path, bool use_space_char) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open character dictionary");
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw Error(path + ": error reading character dictionary");
  const std::string data = ss.str();
  CharDict d;
  d.source = path;
  size_t start = 0;
  while (start < data.size()) {
    size_t nl = data.find('\n', start);
    if (nl == std::string::npos) nl = data.size();
    std::string line = data.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    d.chars.push_back(line);
    start = nl + 1;
  }
  if (d.chars.empty()) throw Error(path + ": character dictionary is empty");
  if (use_space_char) d.chars.push_back(" ");
  return d;
}

CtcResult ctc_greedy_decode(const NDArray &probs, const CharDict &dict) {
  const Shape &s = probs.shape();
  const std::string who = "ctc_greedy_decode (dictionary " + dict.source + ")";
  if (probs.dtype() != float32()) throw DTypeError(who + ": probabilities must be float32");
  int64_t T, C;
  if (s.size() == 2) {
    T = s[0];
    C = s[1];
  } else if (s.size() == 3) {
    if (s[0] != 1) throw ShapeError(who + ": batch " + std::to_string(s[0]) + " != 1");
    T = s[1];
    C = s[2];
  } else {
    throw ShapeError(who + ": probabilities must be [T, C] or [1, T, C], got rank " + std::to_string(s.size()));
  }
  if (C != dict.num_classes())
    throw ShapeError(who + ": model has " + std::to_string(C) + " classes but the dictionary gives " +
                     std::to_string(dict.num_classes()) + " (1 blank + " + std::to_string(dict.chars.size()) +
                     " characters); wrong dictionary or use_space_char setting?");
  CtcResult r;
  const float *p = probs.data<float>();
  int prev = -1;
  double sum = 0;
  for (int64_t t = 0; t < T; t++) {
    const float *row = p + t * C;
    int best = 0;
    for (int64_t c = 1; c < C; c++)
      if (row[c] > row[best]) best = static_cast<int>(c);
    if (best != 0 && best != prev) {
      r.text += dict.chars[best - 1];
      r.classes.push_back(best);
      r.steps.push_back(static_cast<int>(t));
      sum += row[best];
    }
    prev = best;
  }
  r.confidence = r.classes.empty() ? 0.0 : sum / r.classes.size();
  return r;
}

}  // namespace ocr
}  // namespace tetune
