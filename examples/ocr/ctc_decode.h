// Greedy CTC decoding of the PaddleOCR recognition output.
//
//   CharDict dict = load_dict("models/ppocr/ppocr_keys_v1.txt");   // + space
//   CtcResult r = ctc_greedy_decode(probs, dict);   // probs: [1, T, C] or [T, C]
//
// Classes: 0 is the CTC blank, class i (1 <= i <= lines) is dictionary line
// i-1, and with use_space_char (PaddleOCR's default for this model) one more
// class, the last, is ' '. ppocr_keys_v1.txt has 6623 lines, so the model
// has 1 + 6623 + 1 = 6625 classes.
#pragma once

#include <string>
#include <vector>

#include "base/ndarray.h"

namespace tetune {
namespace ocr {

struct CharDict {
  std::string source;                 // file name (for messages)
  std::vector<std::string> chars;     // class i+1 -> chars[i] (UTF-8)
  /** Number of model classes: chars + the blank. */
  int num_classes() const { return static_cast<int>(chars.size()) + 1; }
};

/**
 * One entry per line ('\n' separated, a trailing '\r' dropped, a missing final
 * newline accepted), plus " " at the end when use_space_char. Raises
 * tetune::Error naming the file when it cannot be read or is empty.
 */
CharDict load_dict(const std::string &path, bool use_space_char = true);

struct CtcResult {
  std::string text;
  /** Mean of the max probability of the emitted characters (0 when none). */
  double confidence = 0;
  /** Class index and time step of each emitted character. */
  std::vector<int> classes, steps;
};

/**
 * Greedy decode: argmax per time step, merge repeats, drop blanks. probs is
 * float32 [T, C] or [1, T, C]. Raises ShapeError naming the dictionary file when
 * C != dict.num_classes(), or when probs has another rank / batch.
 */
CtcResult ctc_greedy_decode(const NDArray &probs, const CharDict &dict);

}  // namespace ocr
}  // namespace tetune
