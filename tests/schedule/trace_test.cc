// Traces name tensors canonically (t<n> in post order), so a trace recorded on
// one compute replays on any compute with the same workload key, whatever its
// tensors are called.
#include <gtest/gtest.h>

#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "te/interpreter.h"
#include "te/structural_hash.h"

namespace tetune {
namespace {

struct Gemm {
  Tensor a, b, out;
};

// relu(A x B) with the tensors named as given: a, b, the product, the relu.
Gemm named_gemm_relu(const std::vector<std::string> &names) {
  Tensor A = placeholder({16, 12}, float32(), names[0]), B = placeholder({12, 24}, float32(), names[1]);
  IterVar k = reduce_axis(12, "k");
  Tensor C = compute({16, 24}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, names[2],
                     "matmul", {"i", "j"});
  Tensor R = compute({16, 24}, [&](const std::vector<Var> &i) { return max(C(i[0], i[1]), Expr(0.0f)); }, names[3], "relu",
                     {"i", "j"});
  return {A, B, R};
}

// Every primitive that names a stage or tensor: cache_read (tensor and
// readers), cache_write (a derived ".local" stage), compute_at (target).
Schedule schedule_with_every_stage_name(const Gemm &g, const std::vector<std::string> &names) {
  Schedule s({g.out});
  const std::string &prod = names[2], &relu = names[3];
  std::string bc = s.cache_read(names[1], {prod});
  std::string local = s.cache_write(prod);
  s.split(relu, "j", 8);
  s.compute_at(prod, relu, "j_o");
  s.compute_at(local, prod, "i");
  s.compute_at(bc, local, "k");
  s.vectorize(relu, "j_i");
  return s;
}

void expect_equals_reference(const Schedule &s, const Gemm &g) {
  std::vector<NDArray> in = {NDArray::random({16, 12}, float32(), 3), NDArray::random({12, 24}, float32(), 4)};
  auto want = interpret({g.out}, {g.a, g.b}, in);
  auto got = Kernel::build(s).run(in);
  std::string where;
  EXPECT_TRUE(all_close(got[0], want[0], 1e-4, 1e-5, &where)) << where << "\n" << trace_to_json(s);
}

TEST(Trace, ReplaysOnTheSameComputeWithOtherTensorNames) {
  std::vector<std::string> mine = {"A", "B", "C", "out"};
  // ONNX-style names, one holding a dot, one equal to another's canonical name.
  std::vector<std::string> theirs = {"x.in", "t0", "p2o_MatMul_0.mm", "p2o_Relu_1"};
  Gemm g1 = named_gemm_relu(mine), g2 = named_gemm_relu(theirs);
  ASSERT_EQ(workload_key({g1.out}), workload_key({g2.out}));

  Schedule s1 = schedule_with_every_stage_name(g1, mine);
  std::string json = trace_to_json(s1);
  for (const char *name : {"\"A\"", "\"B\"", "\"C\"", "\"out\"", "\"C.local\""})
    EXPECT_EQ(json.find(name), std::string::npos) << name << " in " << json;
  EXPECT_NE(json.find("\"t2.local\""), std::string::npos) << json;

  Schedule s2 = replay({g2.out}, trace_from_json(json, {g2.out}));
  // The replayed trace is the one written for the renamed compute directly.
  EXPECT_EQ(s2.trace(), schedule_with_every_stage_name(g2, theirs).trace());
  EXPECT_EQ(trace_to_json(s2), json);
  expect_equals_reference(s2, g2);
}

TEST(Trace, DuplicateTensorNamesGetTheirStageNames) {
  // Two tensors named "C": the schedule calls the second "C_1"; canonical names keep them apart.
  std::vector<std::string> dup = {"A", "B", "C", "C"};
  Gemm g = named_gemm_relu(dup);
  Schedule s({g.out});
  s.split("C_1", "i", 4);
  s.compute_at("C", "C_1", "i_o");
  std::string json = trace_to_json(s);
  Schedule r = replay({g.out}, trace_from_json(json, {g.out}));
  EXPECT_EQ(r.trace(), s.trace());
  expect_equals_reference(r, g);
}

TEST(Trace, VersionOneTracesKeepTheirNames) {
  Gemm g = named_gemm_relu({"A", "B", "C", "out"});
  std::string v1 = R"({"version": 1, "steps": [{"kind": "split", "stage": "out", "axes": ["j"], "ints": [8, 0], "target": ""},
    {"kind": "compute_at", "stage": "C", "axes": ["j_o"], "ints": [], "target": "out"}]})";
  Schedule r = replay({g.out}, trace_from_json(v1, {g.out}));
  EXPECT_EQ(r.stage("C").attach.stage, "out");
  expect_equals_reference(r, g);
  // With no "version" a trace is version 1.
  EXPECT_EQ(trace_from_json(R"({"steps": [{"kind": "compute_root", "stage": "C"}]})", {g.out})[0], Step(ComputeRootStep{"C"}));
}

// Version-2 text in the form the tuner stores it (compact, keys sorted, all
// five fields in every step, as in tuning_logs/shipped.db replayed through
// tests/relay_import/shipped_traces_test) reads into typed steps and writes
// back byte for byte.
TEST(Trace, VersionTwoTextRoundTripsByteForByte) {
  Gemm g = named_gemm_relu({"A", "B", "C", "out"});
  const std::string tiled =
      R"({"steps":[{"axes":["t2"],"ints":[],"kind":"cache_read","stage":"t1","target":""},)"
      R"({"axes":["ax1"],"ints":[8],"kind":"pack_layout","stage":"t1.cache","target":""},)"
      R"({"axes":[],"ints":[],"kind":"cache_write","stage":"t2","target":""},)"
      R"({"axes":["j"],"ints":[8,0],"kind":"split","stage":"t3","target":""},)"
      R"({"axes":["i"],"ints":[4,1],"kind":"split","stage":"t3","target":"guard_with_if"},)"
      R"({"axes":["i_o","j_o","i_i","j_i"],"ints":[],"kind":"reorder","stage":"t3","target":""},)"
      R"({"axes":["i_o","j_o"],"ints":[],"kind":"fuse","stage":"t3","target":""},)"
      R"({"axes":["i_o_j_o_f"],"ints":[],"kind":"parallel","stage":"t3","target":""},)"
      R"({"axes":["j_i"],"ints":[],"kind":"vectorize","stage":"t3","target":""},)"
      R"({"axes":["i_o_j_o_f"],"ints":[],"kind":"compute_at","stage":"t2","target":"t3"},)"
      R"({"axes":["i"],"ints":[],"kind":"compute_at","stage":"t2.local","target":"t2"},)"
      R"({"axes":["k"],"ints":[4,0],"kind":"split","stage":"t2.local","target":""},)"
      R"({"axes":["k_i"],"ints":[],"kind":"unroll","stage":"t2.local","target":""},)"
      R"({"axes":["j","i"],"ints":[],"kind":"reorder_storage","stage":"t2.local","target":""},)"
      R"({"axes":["k_o"],"ints":[],"kind":"compute_at","stage":"t1.cache","target":"t2.local"}],"version":2})";
  const std::string factored =
      R"({"steps":[{"axes":["k"],"ints":[],"kind":"rfactor","stage":"t2","target":""},)"
      R"({"axes":["k"],"ints":[],"kind":"parallel","stage":"t2.rf","target":""},)"
      R"({"axes":["i"],"ints":[],"kind":"compute_at","stage":"t2","target":"t3"},)"
      R"({"axes":[],"ints":[],"kind":"compute_root","stage":"t2","target":""},)"
      R"({"axes":["i"],"ints":[],"kind":"bind","stage":"t3","target":"blockIdx.x"}],"version":2})";
  for (const std::string &text : {tiled, factored}) {
    std::vector<Step> steps = trace_from_json(text, {g.out});
    EXPECT_EQ(trace_to_json(replay({g.out}, steps)), text);
  }
  std::vector<Step> steps = trace_from_json(tiled, {g.out});
  ASSERT_EQ(steps.size(), 15u);
  EXPECT_EQ(steps[0], Step(CacheReadStep{"B", {"C"}}));
  EXPECT_EQ(steps[1], Step(PackLayoutStep{"B.cache", "ax1", 8}));
  EXPECT_EQ(steps[4], Step(SplitStep{"out", "i", 4, true, TailStrategy::GuardWithIf}));
  EXPECT_EQ(steps[9], Step(ComputeAtStep{"C", "out", "i_o_j_o_f"}));
  EXPECT_EQ(to_string(steps[4]), "split(out, i, 4, 1, guard_with_if)");
  EXPECT_EQ(trace_from_json(factored, {g.out})[4], Step(BindStep{"out", "i", "blockIdx.x"}));
  expect_equals_reference(replay({g.out}, steps), g);
}

TEST(Trace, BadCanonicalNamesAndVersionsAreRefused) {
  Gemm g = named_gemm_relu({"A", "B", "C", "out"});
  auto error_of = [&](const std::string &json) {
    try {
      trace_from_json(json, {g.out});
    } catch (const ParseError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string far = error_of(R"({"version": 2, "steps": [{"kind": "compute_root", "stage": "t9"}]})");
  EXPECT_NE(far.find("'t9'"), std::string::npos) << far;
  EXPECT_NE(far.find("4 tensors"), std::string::npos) << far;
  std::string raw = error_of(R"({"version": 2, "steps": [{"kind": "compute_root", "stage": "C"}]})");
  EXPECT_NE(raw.find("'C'"), std::string::npos) << raw;
  EXPECT_NE(raw.find("step 0"), std::string::npos) << raw;
  EXPECT_NE(error_of(R"({"version": 7, "steps": []})").find("version 7"), std::string::npos);
  EXPECT_NE(error_of("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"steps": [{"stage": "C"}]})").find("step 0"), std::string::npos);
  // A step with an unknown kind, or with too few arguments for its kind, names the step.
  std::string kind = error_of(R"({"steps": [{"kind": "skew", "stage": "C"}]})");
  EXPECT_NE(kind.find("step 0"), std::string::npos) << kind;
  EXPECT_NE(kind.find("'skew'"), std::string::npos) << kind;
  std::string arity = error_of(R"({"steps": [{"kind": "split", "stage": "C", "axes": ["i"], "ints": [8]}]})");
  EXPECT_NE(arity.find("step 0"), std::string::npos) << arity;
  EXPECT_NE(arity.find("split"), std::string::npos) << arity;
  EXPECT_NE(error_of(R"({"steps": [{"kind": "split", "stage": "C", "axes": ["i"], "ints": [8, 0], "target": "sideways"}]})")
                .find("sideways"),
            std::string::npos);
}

}  // namespace
}  // namespace tetune
