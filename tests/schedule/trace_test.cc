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
  EXPECT_EQ(trace_from_json(R"({"steps": [{"kind": "compute_root", "stage": "C"}]})", {g.out})[0].stage, "C");
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
}

}  // namespace
}  // namespace tetune
