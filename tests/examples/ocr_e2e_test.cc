// End to end: the committed images (examples/ocr/images/) decode to exactly
// their rendered text with PP-OCRv4 rec at [1,3,48,320], through tetune's
// executor and through onnxruntime-node (tools/reference/run_reference.js);
// the two backends' probabilities agree.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "examples/ocr/ctc_decode.h"
#include "examples/ocr/preprocess.h"
#include "examples/ocr/rec_model.h"
#include "base/errors.h"
#include "tests/examples/test_util.h"

namespace tetune {
namespace ocr {
namespace {

const std::map<std::string, std::string> kImages = {
    {"tetune_2026.png", "tetune 2026"},
    {"hello_world.png", "Hello World"},
    {"bazel_build.png", "Bazel 4.2.1 build"},
};

std::string model_path() { return examples_test::repo_root() + "/models/ppocr/ch_PP-OCRv4_rec_infer.onnx"; }
std::string dict_path() { return examples_test::repo_root() + "/models/ppocr/ppocr_keys_v1.txt"; }
std::string ort_script() { return examples_test::repo_root() + "/tools/reference/run_reference.js"; }

bool have_models() {
  return !examples_test::repo_root().empty() && examples_test::path_exists(model_path()) &&
         examples_test::path_exists(dict_path());
}
bool have_ort() {
  return have_models() &&
         examples_test::path_exists(examples_test::repo_root() + "/tools/reference/node_modules/onnxruntime-node") &&
         std::system("node --version >/dev/null 2>&1") == 0;
}

NDArray input(const std::string &file) { return preprocess(load_image("examples/ocr/images/" + file)); }

// Outputs of each backend, kept for the agreement check.
std::map<std::string, NDArray> &outputs(const std::string &backend) {
  static std::map<std::string, std::map<std::string, NDArray>> m;
  return m[backend];
}

void check_backend(RecognitionModel &model) {
  CharDict dict = load_dict(dict_path());
  for (const auto &[file, text] : kImages) {
    NDArray y = model.run(input(file));
    ASSERT_EQ(y.shape(), (Shape{1, 40, 6625})) << file;
    CtcResult r = ctc_greedy_decode(y, dict);
    std::printf("[%s] %s -> \"%s\" (confidence %.4f)\n", model.name().c_str(), file.c_str(), r.text.c_str(),
                r.confidence);
    EXPECT_EQ(r.text, text) << file << " through " << model.name();
    EXPECT_GT(r.confidence, 0.9) << file << " through " << model.name();
    outputs(model.name())[file] = y;
  }
}

TEST(OcrEndToEnd, OnnxRuntimeReference) {
  if (!have_ort())
    GTEST_SKIP() << "models/ppocr or tools/reference/node_modules (or node) missing: run tools/setup.sh";
  auto m = make_ort_model(model_path(), ort_script());
  check_backend(*m);
}

TEST(OcrEndToEnd, TetuneExecutor) {
  if (!have_models()) GTEST_SKIP() << "models/ppocr missing: run tools/setup.sh or tools/fetch_models.sh";
  auto m = make_tetune_model(model_path(), 320);
  check_backend(*m);
  EXPECT_THROW(m->run(NDArray({1, 3, 48, 160}, float32())), ShapeError);
}

TEST(OcrEndToEnd, BackendsAgree) {
  auto &a = outputs("tetune"), &b = outputs("onnxruntime");
  if (a.size() != kImages.size() || b.size() != kImages.size())
    GTEST_SKIP() << "needs both OnnxRuntimeReference and TetuneExecutor to have run";
  for (const auto &[file, text] : kImages) {
    std::string where;
    EXPECT_TRUE(all_close(a[file], b[file], 1e-3, 1e-4, &where)) << file << ": " << where;
    std::printf("%s: max |tetune - onnxruntime| = %.3g\n", file.c_str(), max_abs_diff(a[file], b[file]));
  }
}

TEST(OcrEndToEnd, OrtErrorsNameTheScript) {
  try {
    make_ort_model(model_path(), examples_test::tmp_dir() + "/no_such_script.js");
    FAIL() << "expected tetune::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("no_such_script.js"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ocr
}  // namespace tetune
