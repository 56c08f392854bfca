// The three PaddleOCR models: import, compile (default schedules), run, and
// compare with onnxruntime-node (tools/reference) on make_input.js seed-7 inputs
// (and, for det, a structured page-like input whose output is not ~0).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "relay_import/executor.h"
#include "runtime/io.h"
#include "relay_import/onnx_importer.h"
#include "base/errors.h"
#include "tests/relay_import/test_util.h"

namespace tetune {
namespace {

using relay::CompiledModel;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string reference_dir() {
  static std::string dir;
  static bool tried = false;
  if (tried) return dir;
  tried = true;
  std::string root = testing::repo_root();
  if (root.empty()) return dir;
  if (!testing::path_exists(root + "/models/ppocr/ch_PP-OCRv4_rec_infer.onnx") ||
      !testing::path_exists(root + "/tools/reference/node_modules/onnxruntime-node"))
    return dir;
  std::string out = testing::tmp_dir() + "/ppocr_ref";
  std::string cmd = "bash '" + root + "/tests/relay_import/make_reference.sh' '" + out + "' '" + root + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) == 0) dir = out;
  return dir;
}

struct Result {
  double max_abs = 0, max_rel = 0;
};

void check_model(const std::string &model, const std::string &shape, const std::string &refname,
                 const std::string &output, bool also_img = false) {
  std::string refdir = reference_dir();
  if (refdir.empty())
    GTEST_SKIP() << "models/ppocr or tools/reference/node_modules missing (run tools/setup.sh), or node failed: "
                    "cannot produce onnxruntime reference outputs";
  std::string root = testing::repo_root();
  relay::ImportOptions io;
  io.input_shapes = relay::parse_input_shapes("x=" + shape);
  double t0 = now_s();
  relay::Graph g = relay::import_onnx(root + "/models/ppocr/" + model, io);
  double t1 = now_s();
  CompiledModel m = relay::compile_model(std::move(g));
  double t2 = now_s();
  std::printf("[%s] import %.2fs, passes+fusion %.2fs, kernel build %.2fs\n%s", refname.c_str(), t1 - t0,
              m.stats().passes_s, m.stats().build_s, m.summary().substr(0, m.summary().find("  g")).c_str());
  std::vector<std::string> dirs = {refname};
  if (also_img) dirs.push_back(refname + "_img");
  for (const auto &d : dirs) {
    NDArray x = rt::read_npy_file(refdir + "/" + d + "/in.npy");
    NDArray ref = rt::read_npy_file(refdir + "/" + d + "/" + output + ".npy");
    auto y = m.run({x});  // warm-up
    double t3 = now_s();
    y = m.run({x});
    double t4 = now_s();
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), ref.shape());
    double max_abs = max_abs_diff(y[0], ref), max_rel = 0, max_ref = 0;
    for (int64_t i = 0; i < ref.size(); i++) {
      double r = std::fabs(ref.get(i));
      max_ref = std::max(max_ref, r);
      if (r > 1e-3) max_rel = std::max(max_rel, std::fabs(y[0].get(i) - ref.get(i)) / r);
    }
    std::string where;
    bool ok = all_close(y[0], ref, 1e-3, 1e-4, &where);
    std::printf("[%s] run %.1f ms, max |ref| %.4g, max abs err %.3g, max rel err (|ref|>1e-3) %.3g, total compile %.1fs\n",
                d.c_str(), (t4 - t3) * 1e3, max_ref, max_abs, max_rel, t2 - t0);
    EXPECT_TRUE(ok) << d << ": " << where;
  }
}

TEST(PPOCR, Cls) { check_model("ch_ppocr_mobile_v2.0_cls_infer.onnx", "1,3,48,192", "cls", "softmax_0.tmp_0"); }
TEST(PPOCR, Rec) { check_model("ch_PP-OCRv4_rec_infer.onnx", "1,3,48,320", "rec", "softmax_11.tmp_0"); }
TEST(PPOCR, Det) { check_model("ch_PP-OCRv4_det_infer.onnx", "1,3,640,640", "det", "sigmoid_0.tmp_0", true); }

}  // namespace
}  // namespace tetune
