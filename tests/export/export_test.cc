// tetune compile's export (relay_import/export) + the compiler-free runtime
// (runtime/model.h): export the PaddleOCR cls and rec models to a temp dir,
// run them through rt::Model, compare with the JIT CompiledModel::run output
// (same schedules, same Halide target: expected equal to ~1e-6) and with
// onnxruntime-node references when tools/reference/node_modules exist
// (tests/relay_import/make_reference.sh); a missing / corrupted OUT/ file
// gives an error naming the file.
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "relay_import/executor.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "runtime/io.h"
#include "runtime/model.h"
#include "runtime/scratch_cache.h"
#include "base/errors.h"
#include "tests/export/file_util.h"

namespace tetune {
namespace {

bool exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string repo_root() {
  if (const char *r = getenv("TETUNE_ROOT")) return r;
  char buf[PATH_MAX];
  // the runfiles symlink of a file of this package resolves into the workspace
  if (realpath("tests/export/standalone_runtime_test.sh", buf)) {
    std::string p(buf);
    return p.substr(0, p.size() - std::string("/tests/export/standalone_runtime_test.sh").size());
  }
  return "";
}

std::string tmp_dir() {
  if (const char *t = getenv("TEST_TMPDIR")) return t;
  return "/tmp";
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string reference_dir() {
  static std::string dir;
  static bool tried = false;
  if (tried) return dir;
  tried = true;
  std::string root = repo_root();
  if (root.empty() || !exists(root + "/tools/reference/node_modules/onnxruntime-node")) return dir;
  std::string out = tmp_dir() + "/ppocr_ref";
  std::string cmd = "bash '" + root + "/tests/relay_import/make_reference.sh' '" + out + "' '" + root + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) == 0) dir = out;
  return dir;
}

struct Case {
  std::string model, shape, ref, output;
};

/** Exports once per model per process (and JIT-compiles it when jit is given); returns OUT. */
std::string exported(const Case &c, relay::CompiledModel *jit) {
  static std::map<std::string, std::string> done;  // ref -> OUT
  std::string root = repo_root();
  if (!jit && done.count(c.ref)) return done[c.ref];
  relay::ImportOptions io;
  io.input_shapes = relay::parse_input_shapes("x=" + c.shape);
  std::string out = tmp_dir() + "/export_" + c.ref;
  double t0 = now_s();
  relay::ExportOptions eo;
  eo.model_path = root + "/models/ppocr/" + c.model;
  relay::ExportResult r = relay::export_model(relay::import_onnx(eo.model_path, io), out, eo);
  double t1 = now_s();
  std::printf("[%s] export: %d groups, %d kernels (%s), %.1f s\n", c.ref.c_str(), r.groups, r.tasks,
              relay::format_source_counts(r.task_sources).c_str(), t1 - t0);
  EXPECT_EQ(r.task_sources.record, 0);
  EXPECT_EQ(r.task_sources.total(), r.tasks);
  if (jit) *jit = relay::compile_model(relay::import_onnx(eo.model_path, io));
  std::printf("[%s] JIT compile %.1f s\n", c.ref.c_str(), now_s() - t1);
  done[c.ref] = out;
  return out;
}

void check(const Case &c) {
  std::string root = repo_root();
  if (root.empty() || !exists(root + "/models/ppocr/" + c.model)) GTEST_SKIP() << "models/ppocr missing (tools/fetch_models.sh)";
  relay::CompiledModel jit;
  std::string out = exported(c, &jit);
  for (const char *f : {"libmodel.so", "graph.bin", "weights.bin", "manifest.json"}) EXPECT_TRUE(exists(out + "/" + f)) << f;
  EXPECT_FALSE(exists(out + "/build"));
  auto m = rt::Model::load(out);
  m->set_num_threads(1);
  ASSERT_EQ(m->input_names(), jit.input_names());
  ASSERT_EQ(m->output_names(), jit.output_names());
  NDArray x = rt::make_input(m->input_shape(0), 7);
  auto y_aot = m->run({x});
  const uint64_t scratch_blocks = rt::ScratchCache::system_allocations();
  auto y_aot2 = m->run({x});  // buffers reused: same result
  EXPECT_EQ(rt::ScratchCache::system_allocations(), scratch_blocks) << "kernels' scratch reused (runtime/scratch_cache.h)";
  auto y_jit = jit.run({x});
  ASSERT_EQ(y_aot.size(), y_jit.size());
  for (size_t i = 0; i < y_aot.size(); i++) {
    ASSERT_EQ(y_aot[i].shape(), y_jit[i].shape());
    double d = max_abs_diff(y_aot[i], y_jit[i]);
    std::printf("[%s] output %s: max |AOT - JIT| = %.3g, max |run1 - run2| = %.3g\n", c.ref.c_str(),
                m->output_names()[i].c_str(), d, max_abs_diff(y_aot[i], y_aot2[i]));
    EXPECT_LE(d, 1e-6);
    EXPECT_EQ(max_abs_diff(y_aot[i], y_aot2[i]), 0.0);
  }
  // wrong input shape: clear error
  try {
    m->run({NDArray({1, 3, 8, 8}, float32())});
    ADD_FAILURE() << "expected ShapeError";
  } catch (const ShapeError &e) {
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
}

void check_onnxruntime(const Case &c) {
  std::string root = repo_root();
  if (root.empty() || !exists(root + "/models/ppocr/" + c.model)) GTEST_SKIP() << "models/ppocr missing (tools/fetch_models.sh)";
  std::string refdir = reference_dir();
  if (refdir.empty()) GTEST_SKIP() << "no onnxruntime reference (tools/reference/node_modules missing or node failed)";
  auto m = rt::Model::load(exported(c, nullptr));
  m->set_num_threads(1);
  NDArray x = rt::make_input(m->input_shape(0), 7);
  NDArray xin = rt::read_npy_file(refdir + "/" + c.ref + "/in.npy");
  NDArray ref = rt::read_npy_file(refdir + "/" + c.ref + "/" + c.output + ".npy");
  EXPECT_EQ(max_abs_diff(xin, x), 0.0) << "make_input port differs from make_input.js";
  auto y = m->run({xin});
  ASSERT_EQ(y[0].shape(), ref.shape());
  std::string where;
  bool ok = all_close(y[0], ref, 1e-3, 1e-4, &where);
  std::printf("[%s] vs onnxruntime: max abs err %.3g\n", c.ref.c_str(), max_abs_diff(y[0], ref));
  EXPECT_TRUE(ok) << where;
}

const Case kCls{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "1,3,48,192", "cls", "softmax_0.tmp_0"};
const Case kRec{"ch_PP-OCRv4_rec_infer.onnx", "1,3,48,320", "rec", "softmax_11.tmp_0"};
TEST(Export, ClsMatchesJit) { check(kCls); }
TEST(Export, ClsMatchesOnnxruntime) { check_onnxruntime(kCls); }
TEST(Export, RecMatchesJit) { check(kRec); }
TEST(Export, RecMatchesOnnxruntime) { check_onnxruntime(kRec); }

// ---- corrupted / missing files ----

using test::slurp;
using test::spit;

/** A copy of a cls export to mutate. */
std::string fresh_copy(const std::string &name) {
  static std::string base;
  if (base.empty()) {
    std::string root = repo_root();
    relay::ImportOptions io;
    io.input_shapes = relay::parse_input_shapes("x=1,3,48,192");
    base = tmp_dir() + "/export_cls_small";
    relay::ExportOptions eo;
    relay::export_model(relay::import_onnx(root + "/models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx", io), base, eo);
  }
  std::string d = tmp_dir() + "/corrupt_" + name;
  std::string cmd = "rm -rf '" + d + "' && cp -r '" + base + "' '" + d + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return d;
}

void expect_error_naming(const std::string &dir, const std::string &file, const std::string &what) {
  try {
    auto m = rt::Model::load(dir);
    m->run({rt::make_input(m->input_shape(0), 7)});
    ADD_FAILURE() << what << ": no error";
  } catch (const Error &e) {
    std::string msg = e.what();
    std::printf("%s -> %s\n", what.c_str(), msg.c_str());
    EXPECT_NE(msg.find(dir + "/" + file), std::string::npos) << what << ": " << msg;
  }
}

// ExportOptions::jobs: kernels compiled in forked children, three at a time,
// make the same plan, the same kernels and the same outputs as compiled one
// after another in this process.
TEST(Export, KernelsCompiledInChildrenMatchThoseCompiledHere) {
  std::string root = repo_root();
  if (root.empty() || !exists(root + "/models/ppocr/" + kCls.model)) GTEST_SKIP() << "models/ppocr missing (tools/fetch_models.sh)";
  relay::ImportOptions io;
  io.input_shapes = relay::parse_input_shapes("x=" + kCls.shape);
  std::map<int, relay::ExportResult> results;
  std::map<int, std::vector<NDArray>> outputs;
  for (int jobs : {1, 3}) {
    relay::ExportOptions eo;
    eo.jobs = jobs;
    const std::string out = tmp_dir() + "/export_cls_jobs" + std::to_string(jobs);
    results[jobs] = relay::export_model(relay::import_onnx(root + "/models/ppocr/" + kCls.model, io), out, eo);
    auto m = rt::Model::load(out);
    outputs[jobs] = m->run({rt::make_input(m->input_shape(0), 7)});
  }
  const relay::ExportResult &here = results[1], &children = results[3];
  ASSERT_GT(here.tasks, 3) << "more kernels than jobs";
  EXPECT_EQ(slurp(here.dir + "/graph.bin"), slurp(children.dir + "/graph.bin"));
  EXPECT_EQ(slurp(here.dir + "/weights.bin"), slurp(children.dir + "/weights.bin"));
  ASSERT_EQ(here.task_schedules.size(), children.task_schedules.size());
  for (size_t k = 0; k < here.task_schedules.size(); k++)
    EXPECT_EQ(here.task_schedules[k].workload_key, children.task_schedules[k].workload_key) << "kernel " << k;
  ASSERT_EQ(outputs[1].size(), outputs[3].size());
  for (size_t i = 0; i < outputs[1].size(); i++) EXPECT_EQ(max_abs_diff(outputs[1][i], outputs[3][i]), 0.0) << "output " << i;
}

TEST(Export, CorruptedOrMissingFilesNameTheFile) {
  std::string root = repo_root();
  if (root.empty() || !exists(root + "/models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx")) GTEST_SKIP() << "models/ppocr missing";
  {
    std::string d = fresh_copy("ok");
    auto m = rt::Model::load(d);
    EXPECT_EQ(m->run({rt::make_input(m->input_shape(0), 7)}).size(), 1u);
  }
  for (const char *f : {"graph.bin", "weights.bin", "libmodel.so"}) {
    std::string d = fresh_copy(std::string("missing_") + f);
    std::remove((d + "/" + f).c_str());
    expect_error_naming(d, f, std::string("missing ") + f);
  }
  {
    std::string d = fresh_copy("trunc_graph");
    std::string s = slurp(d + "/graph.bin");
    spit(d + "/graph.bin", s.substr(0, s.size() / 2));
    expect_error_naming(d, "graph.bin", "truncated graph.bin");
  }
  {
    std::string d = fresh_copy("flip_graph");
    std::string s = slurp(d + "/graph.bin");
    s[s.size() / 2] ^= 0x5a;
    spit(d + "/graph.bin", s);
    expect_error_naming(d, "graph.bin", "flipped byte in graph.bin");
  }
  {
    std::string d = fresh_copy("garbage_graph");
    spit(d + "/graph.bin", "hello");
    expect_error_naming(d, "graph.bin", "garbage graph.bin");
  }
  {
    std::string d = fresh_copy("trunc_weights");
    std::string s = slurp(d + "/weights.bin");
    spit(d + "/weights.bin", s.substr(0, s.size() - 100));
    expect_error_naming(d, "weights.bin", "truncated weights.bin");
  }
  {
    std::string d = fresh_copy("flip_weights");
    std::string s = slurp(d + "/weights.bin");
    s[s.size() - 7] ^= 0x01;
    spit(d + "/weights.bin", s);
    expect_error_naming(d, "weights.bin", "flipped byte in weights.bin");
  }
  {
    std::string d = fresh_copy("garbage_lib");
    spit(d + "/libmodel.so", "not an ELF file");
    expect_error_naming(d, "libmodel.so", "garbage libmodel.so");
  }
}

}  // namespace
}  // namespace tetune
