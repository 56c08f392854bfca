// ONNX's conformance data, the three suites of libonnx-testdata
// (/usr/share/libonnx-testdata/data/{node,pytorch-converted,pytorch-operator}/
// test_*/): every test whose ops tetune supports is imported, compiled (JIT,
// default schedules) and run on test_data_set_0; outputs are compared with
// output_N.pb. Prints passed / failed / unsupported counts per suite, next to
// onnxruntime's on the same data (bench/ort/onnx_suites.js). A failing test
// must be listed (with its reason) in onnx_node_tests_expected_failures.txt:
// node tests by name, the others as <suite>/<test name>.
//
// Inputs that feed a parameter slot (a Reshape shape, Resize scales, Slice
// starts...) are frozen to their test values (ImportOptions::frozen_inputs),
// since tetune compiles for static shapes.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "base/errors.h"
#include "tests/relay_import/test_util.h"

namespace tetune {
namespace {

const char *kDataDir = "/usr/share/libonnx-testdata/data";

/**
 * The node suite must not fall below this many passes: the count when the
 * check came in (788 of 932); raise it as operators land (issue 22 asks for 820).
 */
constexpr int kMinNodePassed = 788;

/** onnxruntime-node 1.30.0's counts on the same data (node bench/ort/onnx_suites.js). */
const std::map<std::string, std::string> &onnxruntime_counts() {
  static const std::map<std::string, std::string> m = {
      {"node", "932 total, 859 passed, 45 failed, 28 unsupported"},
      {"pytorch-converted", "82 total, 59 passed, 0 failed, 23 unsupported (opset < 7 kernels)"},
      {"pytorch-operator", "35 total, 24 passed, 0 failed, 11 unsupported (opset < 7 kernels)"}};
  return m;
}

std::vector<std::string> list_dir(const std::string &d, const std::string &prefix) {
  std::vector<std::string> r;
  DIR *dir = opendir(d.c_str());
  if (!dir) return r;
  while (dirent *e = readdir(dir)) {
    std::string n = e->d_name;
    if (n.compare(0, prefix.size(), prefix) == 0) r.push_back(n);
  }
  closedir(dir);
  std::sort(r.begin(), r.end());
  return r;
}

std::vector<NDArray> read_pbs(const std::string &dir, const std::string &prefix) {
  std::vector<NDArray> r;
  for (int i = 0;; i++) {
    std::string p = dir + "/" + prefix + std::to_string(i) + ".pb";
    if (!testing::path_exists(p)) break;
    r.push_back(relay::read_tensor_pb(p));
  }
  return r;
}

// Parameter slots (input index >= this) of ops whose parameters must be constant.
const std::map<std::string, int> &param_ops() {
  static const std::map<std::string, int> m = {
      {"Reshape", 1}, {"Resize", 1}, {"Upsample", 1}, {"Clip", 1}, {"Pad", 1}, {"Slice", 1}, {"Split", 1},
      {"Expand", 1}, {"Squeeze", 1}, {"Unsqueeze", 1}, {"ReduceMean", 1}, {"ReduceMax", 1}, {"ReduceMin", 1},
      {"ReduceSum", 1}, {"ReduceProd", 1}, {"ConstantOfShape", 0}, {"Range", 0},
      {"Tile", 1}, {"OneHot", 1}, {"ReduceSumSquare", 1}, {"ReduceL1", 1}, {"ReduceL2", 1}, {"ReduceLogSum", 1},
      {"ReduceLogSumExp", 1}};
  return m;
}

enum class Outcome { Pass, Fail, Unsupported };

Outcome run_one(const std::string &dir, std::string *reason) {
  std::string model = dir + "/model.onnx";
  std::string data = dir + "/test_data_set_0";
  try {
    relay::ImportOptions raw;
    raw.infer_shapes = false;
    relay::Graph g0 = relay::import_onnx(model, raw);
    std::vector<NDArray> ins, outs;
    try {
      ins = read_pbs(data, "input_");
      outs = read_pbs(data, "output_");
    } catch (const std::exception &e) {
      *reason = std::string("unsupported test data (not a TensorProto: sequence / optional?): ") + e.what();
      return Outcome::Unsupported;
    }
    for (const auto &o : outs)
      if (o.size() == 0) {
        *reason = "unsupported: zero-size output";
        return Outcome::Unsupported;
      }
    if (g0.inputs.size() != ins.size()) {
      *reason = "model has " + std::to_string(g0.inputs.size()) + " inputs, test data " + std::to_string(ins.size());
      return Outcome::Fail;
    }
    relay::ImportOptions io;
    std::vector<NDArray> feed;
    for (size_t i = 0; i < g0.inputs.size(); i++) {
      const std::string &name = g0.values[g0.inputs[i]].name;
      bool param = false;
      for (const auto &n : g0.nodes) {
        auto it = param_ops().find(n.op);
        if (it == param_ops().end()) continue;
        for (size_t k = it->second; k < n.inputs.size(); k++) param |= n.inputs[k] == g0.inputs[i];
      }
      if (param) io.frozen_inputs[name] = ins[i];
      else if (ins[i].size() == 0) {
        *reason = "unsupported: zero-size input '" + name + "'";
        return Outcome::Unsupported;
      } else {
        io.input_shapes[name] = ins[i].shape();
        feed.push_back(ins[i]);
      }
    }
    relay::Graph g = relay::import_onnx(model, io);
    relay::CompiledModel m = relay::compile_model(std::move(g));
    std::vector<NDArray> got = m.run(feed);
    if (got.size() != outs.size()) {
      *reason = "got " + std::to_string(got.size()) + " outputs, expected " + std::to_string(outs.size());
      return Outcome::Fail;
    }
    for (size_t i = 0; i < outs.size(); i++) {
      if (got[i].shape() != outs[i].shape()) {
        *reason = "output " + std::to_string(i) + " shape " + shape_str(got[i].shape()) + ", expected " + shape_str(outs[i].shape());
        return Outcome::Fail;
      }
      if (got[i].dtype() != outs[i].dtype()) {
        *reason = "output " + std::to_string(i) + " dtype " + got[i].dtype().str() + ", expected " + outs[i].dtype().str();
        return Outcome::Fail;
      }
      auto tol = default_tolerance(outs[i].dtype());
      double rtol = std::max(tol.first, 1e-3), atol = std::max(tol.second, 1e-5);
      std::string where;
      if (!all_close(got[i], outs[i], rtol, atol, &where)) {
        *reason = "output " + std::to_string(i) + " mismatch: " + where;
        return Outcome::Fail;
      }
    }
    return Outcome::Pass;
  } catch (const Error &e) {
    std::string msg = e.what();
    *reason = msg.substr(0, msg.find('\n'));
    if (msg.find("unsupported") != std::string::npos) return Outcome::Unsupported;
    return Outcome::Fail;
  } catch (const std::exception &e) {
    *reason = std::string("std::exception: ") + e.what();
    return Outcome::Fail;
  }
}

std::map<std::string, std::string> expected_failures() {
  std::map<std::string, std::string> r;
  std::string rel = "tests/relay_import/onnx_node_tests_expected_failures.txt";
  std::ifstream is(testing::path_exists(rel) ? rel : testing::repo_root() + "/" + rel);
  EXPECT_TRUE(is.good()) << "cannot read " << rel;
  std::string line;
  while (std::getline(is, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string name;
    ss >> name;
    std::string rest;
    std::getline(ss, rest);
    r[name] = rest;
  }
  return r;
}

struct SuiteCounts {
  int total = 0, pass = 0, fail = 0, unsup = 0;
};

/**
 * Runs every test_* of suite (ONNX_NODE_TEST_FILTER: only names containing it),
 * prints its counts and failures, and fails the test on a failure that is not
 * expected; `key_prefix` + test name is the key in the expected failures file.
 */
SuiteCounts run_suite(const std::string &suite, const std::string &key_prefix) {
  SuiteCounts c;
  std::string dir = std::string(kDataDir) + "/" + suite;
  std::vector<std::string> tests = list_dir(dir, "test_");
  if (const char *f = getenv("ONNX_NODE_TEST_FILTER")) {
    std::vector<std::string> keep;
    for (auto &t : tests)
      if (t.find(f) != std::string::npos) keep.push_back(t);
    tests = keep;
  }
  auto expected = expected_failures();
  std::vector<std::string> unexpected, fixed;
  std::map<std::string, int> unsup_reasons;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto &t : tests) {
    std::string reason, key = key_prefix + t;
    Outcome o = run_one(dir + "/" + t, &reason);
    if (o == Outcome::Pass) {
      c.pass++;
      if (expected.count(key)) fixed.push_back(key);
    } else if (o == Outcome::Unsupported) {
      c.unsup++;
      std::string k = reason;
      size_t p = k.find("unsupported");
      unsup_reasons[k.substr(p, 60)]++;
    } else {
      c.fail++;
      std::printf("FAILED %s: %s\n", key.c_str(), reason.c_str());
      if (!expected.count(key)) unexpected.push_back(key + ": " + reason);
    }
  }
  c.total = static_cast<int>(tests.size());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("ONNX %s tests: %d total, %d passed, %d failed, %d unsupported (%.1f s); onnxruntime: %s\n", suite.c_str(),
              c.total, c.pass, c.fail, c.unsup, secs, onnxruntime_counts().at(suite).c_str());
  if (getenv("ONNX_NODE_TEST_VERBOSE"))
    for (auto &kv : unsup_reasons) std::printf("  unsupported x%d: %s\n", kv.second, kv.first.c_str());
  for (auto &f : fixed) std::printf("note: %s passes but is listed in the expected failures\n", f.c_str());
  for (auto &u : unexpected) ADD_FAILURE() << "unexpected failure (not in onnx_node_tests_expected_failures.txt): " << u;
  return c;
}

TEST(OnnxNodeTests, SupportedTestsPass) {
  if (list_dir(std::string(kDataDir) + "/node", "test_").empty())
    GTEST_SKIP() << kDataDir << "/node not found (install libonnx-testdata)";
  SuiteCounts c = run_suite("node", "");
  if (!getenv("ONNX_NODE_TEST_FILTER")) {
    EXPECT_GE(c.pass, kMinNodePassed) << "the node suite passes fewer tests than it did (kMinNodePassed)";
  }
}

TEST(OnnxNodeTests, PytorchConverted) {
  if (list_dir(std::string(kDataDir) + "/pytorch-converted", "test_").empty())
    GTEST_SKIP() << kDataDir << "/pytorch-converted not found (install libonnx-testdata)";
  run_suite("pytorch-converted", "pytorch-converted/");
}

TEST(OnnxNodeTests, PytorchOperator) {
  if (list_dir(std::string(kDataDir) + "/pytorch-operator", "test_").empty())
    GTEST_SKIP() << kDataDir << "/pytorch-operator not found (install libonnx-testdata)";
  run_suite("pytorch-operator", "pytorch-operator/");
}

}  // namespace
}  // namespace tetune
