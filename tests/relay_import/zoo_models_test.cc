// The PyTorch model zoo (bench/zoo/zoo_models.h, exported by
// bench/zoo/export_zoo.py into models/zoo/): each model is imported, compiled
// (JIT, default schedules) and run on its seeded input, and every output is
// compared with onnxruntime-node (tools/reference/run_reference.js, 1 thread)
// at atol 1e-4 + rtol 1e-3 (|got - ref| <= 1e-4 + 1e-3 |ref|, per element;
// a detector's NMS output as a set of detections, same_detections).
//
// Two targets run this file: zoo_models_test (the small models, instantiation
// Small/, in CI) and zoo_models_big_test (Big/, tag manual). A model whose
// file is absent is skipped with the reason (tools/setup.sh --zoo writes them).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "base/errors.h"
#include "bench/zoo/zoo_models.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "runtime/io.h"
#include "tests/relay_import/test_util.h"

namespace tetune {
namespace zoo {
// gtest names a failing parameter by this (found by ADL) instead of its bytes.
void PrintTo(const ZooModel &m, std::ostream *os) { *os << m.name; }
}  // namespace zoo

namespace {

using zoo::ZooModel;

constexpr double kAtol = 1e-4, kRtol = 1e-3;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/** onnxruntime's outputs for m in OUT/<name>/<output>.npy; "" with *why set when they cannot be made. */
std::string reference(const std::string &root, const ZooModel &m, const std::string &input_npy, std::string *why) {
  std::string ref = root + "/tools/reference";
  if (!testing::path_exists(ref + "/node_modules/onnxruntime-node")) {
    *why = "tools/reference/node_modules missing (run tools/setup.sh): no onnxruntime reference";
    return "";
  }
  std::string out = testing::tmp_dir() + "/zoo_ref/" + m.name;
  std::string cmd = "node '" + ref + "/run_reference.js' --model '" + root + "/models/zoo/" + m.name + ".onnx' --input " +
                    m.input + "='" + input_npy + "' --output-dir '" + out + "' --threads 1 2>&1";
  FILE *p = ::popen(cmd.c_str(), "r");
  std::string log;
  char buf[4096];
  size_t n;
  while (p && (n = std::fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  if (!p || ::pclose(p) != 0) {
    *why = "run_reference.js failed: " + log;
    return "";
  }
  return out;
}

// A detector's NMS output (boxes K x 4, scores K, labels K, as yolo_nms'):
// detections come in descending score order, and where two scores agree to
// rounding (1e-6 apart on an AVX-512 Xeon) the runtimes may list them in
// either order. So each of onnxruntime's detections must match one of
// tetune's: the same label, score and box within the tolerance.
bool is_detection_output(const ZooModel &m) {
  return m.outputs == std::vector<std::string>{"boxes", "scores", "labels"};
}

bool same_detections(const std::vector<NDArray> &got, const std::vector<NDArray> &ref, std::string *why) {
  const int64_t k = ref[1].size();
  std::vector<bool> used(k, false);
  for (int64_t i = 0; i < k; i++) {
    bool found = false;
    for (int64_t j = 0; j < k && !found; j++) {
      if (used[j] || got[2].get(j) != ref[2].get(i) || !elements_close(got[1].get(j), ref[1].get(i), kRtol, kAtol))
        continue;
      bool box = true;
      for (int64_t c = 0; c < 4; c++) box = box && elements_close(got[0].get(4 * j + c), ref[0].get(4 * i + c), kRtol, kAtol);
      if (box) used[j] = found = true;
    }
    if (!found) {
      *why = "onnxruntime's detection " + std::to_string(i) + " (label " + std::to_string(ref[2].get(i)) + ", score " +
             std::to_string(ref[1].get(i)) + ") has no match in tetune's";
      return false;
    }
  }
  return true;
}

class Zoo : public ::testing::TestWithParam<ZooModel> {};

TEST_P(Zoo, MatchesOnnxruntime) {
  const ZooModel &m = GetParam();
  std::string root = testing::repo_root();
  std::string onnx = root + "/models/zoo/" + m.name + ".onnx";
  std::string input_npy = root + "/models/zoo/" + m.name + "." + m.input + ".npy";
  if (root.empty() || !testing::path_exists(onnx) || !testing::path_exists(input_npy))
    GTEST_SKIP() << onnx << " or its input absent: the zoo is not installed (tools/setup.sh --zoo)";
  std::string why;
  std::string refdir = reference(root, m, input_npy, &why);
  ASSERT_FALSE(refdir.empty()) << why;

  double t0 = now_s();
  relay::CompiledModel cm = relay::compile_model(relay::import_onnx(onnx));
  double t1 = now_s();
  NDArray x = rt::read_npy_file(input_npy);
  std::vector<NDArray> y = cm.run({x});  // warm-up
  double t2 = now_s();
  y = cm.run({x});
  double t3 = now_s();
  std::printf("[%s] compile %.1f s (passes+fusion %.1f s, kernel build %.1f s), run %.1f ms\n", m.name.c_str(), t1 - t0,
              cm.stats().passes_s, cm.stats().build_s, (t3 - t2) * 1e3);
  ASSERT_EQ(y.size(), m.outputs.size());
  std::vector<NDArray> refs;
  for (size_t i = 0; i < y.size(); i++) {
    NDArray ref = rt::read_npy_file(refdir + "/" + m.outputs[i] + ".npy");
    refs.push_back(ref);
    ASSERT_EQ(y[i].shape(), ref.shape()) << m.name << " output " << m.outputs[i];
    ASSERT_EQ(y[i].dtype(), ref.dtype()) << m.name << " output " << m.outputs[i];
    const double max_ref = max_abs(ref);
    std::string where;
    bool ok = all_close(y[i], ref, kRtol, kAtol, &where);
    std::printf("[%s] %s: max |ref| %.4g, max abs err %.3g (atol %g + rtol %g)\n", m.name.c_str(), m.outputs[i].c_str(),
                max_ref, max_abs_diff(y[i], ref), kAtol, kRtol);
    if (!is_detection_output(m)) EXPECT_TRUE(ok) << m.name << " output " << m.outputs[i] << ": " << where;
  }
  if (is_detection_output(m)) {
    std::string why;
    EXPECT_TRUE(same_detections(y, refs, &why)) << m.name << ": " << why;
  }
}

std::vector<ZooModel> zoo_subset(bool small) {
  std::vector<ZooModel> r;
  for (const auto &m : zoo::zoo_models())
    if (m.small == small) r.push_back(m);
  return r;
}

std::string param_name(const ::testing::TestParamInfo<ZooModel> &i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(Small, Zoo, ::testing::ValuesIn(zoo_subset(true)), param_name);
INSTANTIATE_TEST_SUITE_P(Big, Zoo, ::testing::ValuesIn(zoo_subset(false)), param_name);

}  // namespace
}  // namespace tetune
