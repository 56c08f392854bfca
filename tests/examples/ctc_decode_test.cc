// examples/ocr greedy CTC decoding on hand-made probability arrays, and the
// dictionary loader (line handling, space class, errors naming the file).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "examples/ocr/ctc_decode.h"
#include "base/errors.h"
#include "tests/examples/test_util.h"

namespace tetune {
namespace ocr {
namespace {

std::string write_file(const std::string &name, const std::string &text) {
  std::string p = examples_test::tmp_dir() + "/" + name;
  FILE *f = std::fopen(p.c_str(), "wb");
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return p;
}

// dict "a","b","中" + space: classes 0 blank, 1 a, 2 b, 3 中, 4 ' '
CharDict small_dict() { return load_dict(write_file("small_keys.txt", "a\nb\n中\n")); }

/** [1, T, 5] with probability p on the given class per step, the rest spread evenly. */
NDArray probs(const std::vector<int> &classes, const std::vector<float> &p) {
  const int C = 5, T = static_cast<int>(classes.size());
  NDArray a({1, T, C}, float32());
  for (int t = 0; t < T; t++)
    for (int c = 0; c < C; c++) a.data<float>()[t * C + c] = c == classes[t] ? p[t] : (1 - p[t]) / (C - 1);
  return a;
}

TEST(OcrCtc, DictLines) {
  CharDict d = small_dict();
  ASSERT_EQ(d.chars.size(), 4u);
  EXPECT_EQ(d.chars[0], "a");
  EXPECT_EQ(d.chars[2], "中");
  EXPECT_EQ(d.chars[3], " ");
  EXPECT_EQ(d.num_classes(), 5);
  // no trailing newline, CRLF, and no space class
  CharDict e = load_dict(write_file("crlf_keys.txt", "x\r\ny"), false);
  ASSERT_EQ(e.chars.size(), 2u);
  EXPECT_EQ(e.chars[0], "x");
  EXPECT_EQ(e.chars[1], "y");
}

TEST(OcrCtc, MergeRepeatsDropBlanks) {
  CharDict d = small_dict();
  // a a _ a b b _ _ 中 ' ' b  ->  "aab中 b"
  CtcResult r = ctc_greedy_decode(probs({1, 1, 0, 1, 2, 2, 0, 0, 3, 4, 2}, {.9f, .8f, .9f, .6f, .7f, .9f, .9f, .9f, .5f, .8f, .7f}), d);
  EXPECT_EQ(r.text, "aab中 b");
  EXPECT_EQ(r.classes, (std::vector<int>{1, 1, 2, 3, 4, 2}));
  EXPECT_EQ(r.steps, (std::vector<int>{0, 3, 4, 8, 9, 10}));
  // confidence: mean of the first step's probability of each emitted character
  EXPECT_NEAR(r.confidence, (.9 + .6 + .7 + .5 + .8 + .7) / 6, 1e-6);
}

TEST(OcrCtc, AllBlankAndRank2) {
  CharDict d = small_dict();
  CtcResult r = ctc_greedy_decode(probs({0, 0, 0}, {.9f, .9f, .9f}), d);
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.confidence, 0.0);
  CtcResult s = ctc_greedy_decode(probs({2, 0, 2}, {.5f, .9f, .7f}).reshaped({3, 5}), d);
  EXPECT_EQ(s.text, "bb");
  EXPECT_NEAR(s.confidence, 0.6, 1e-6);
  EXPECT_EQ(ctc_greedy_decode(NDArray({1, 0, 5}, float32()), d).text, "");
}

TEST(OcrCtc, TiesPickLowestClass) {
  CharDict d = small_dict();
  NDArray a({1, 1, 5}, float32());
  for (int c = 0; c < 5; c++) a.data<float>()[c] = c == 0 || c == 2 ? 0.4f : 0.05f;
  EXPECT_EQ(ctc_greedy_decode(a, d).text, "");  // blank wins the tie, like numpy argmax
}

TEST(OcrCtc, ErrorsNameTheDictionary) {
  CharDict d = small_dict();
  try {
    ctc_greedy_decode(NDArray({1, 4, 6}, float32()), d);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find(d.source), std::string::npos) << m;
    EXPECT_NE(m.find("6 classes"), std::string::npos) << m;
  }
  EXPECT_THROW(ctc_greedy_decode(NDArray({2, 4, 5}, float32()), d), ShapeError);
  EXPECT_THROW(ctc_greedy_decode(NDArray({5}, float32()), d), ShapeError);
  EXPECT_THROW(ctc_greedy_decode(NDArray({1, 4, 5}, int32()), d), DTypeError);
  std::string missing = examples_test::tmp_dir() + "/no_such_keys.txt";
  try {
    load_dict(missing);
    FAIL() << "expected tetune::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  std::string empty = write_file("empty_keys.txt", "");
  try {
    load_dict(empty);
    FAIL() << "expected tetune::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(empty), std::string::npos) << e.what();
  }
}

TEST(OcrCtc, PaddleOcrDictionary) {
  std::string root = examples_test::repo_root();
  std::string path = root + "/models/ppocr/ppocr_keys_v1.txt";
  if (root.empty() || !examples_test::path_exists(path))
    GTEST_SKIP() << "models/ppocr/ppocr_keys_v1.txt missing (run tools/setup.sh or tools/fetch_models.sh)";
  CharDict d = load_dict(path);
  EXPECT_EQ(d.chars.size(), 6624u);  // 6623 lines + space
  EXPECT_EQ(d.num_classes(), 6625);  // = the rec model's output classes
  EXPECT_EQ(d.chars.back(), " ");
  for (size_t i = 0; i + 1 < d.chars.size(); i++) EXPECT_FALSE(d.chars[i].empty()) << "line " << i + 1;
}

}  // namespace
}  // namespace ocr
}  // namespace tetune
