// rfactor: a reduction split into a stage of partial results over the factored
// axis (which is spatial there, so it can be parallelised or vectorised) and a
// final reduction over that axis. Results equal the plain-loop references;
// illegal uses raise ScheduleError naming the step and the axis.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

using testing::RefCase;

void expect_correct(const Schedule &s, const RefCase &c, double rtol = 1e-4, double atol = 1e-5) {
  auto got = Kernel::build(s).run(c.data);
  std::string where;
  EXPECT_TRUE(all_close(got[0], c.expected, rtol, atol, &where)) << where << "\n" << trace_to_json(s);
}

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const ScheduleError &e) {
    return e.what();
  }
  return "";
}

// out[r] = op_k X[r, k] over [R, L], with a double-precision reference.
RefCase row_reduce_case(ReduceOp op, int R, int L, double lo = -1, double hi = 1) {
  RefCase c;
  c.name = std::string("row_") + to_string(op);
  Tensor X = placeholder({R, L}, float32(), "X");
  IterVar k = reduce_axis(L, "k");
  c.output = compute({R}, [&](const std::vector<Var> &i) { return reduce(op, X(i[0], k.var), {k}); }, "S", "reduce", {"r"});
  c.inputs = {X};
  c.data = {NDArray::random({R, L}, float32(), 41, lo, hi)};
  c.expected = NDArray({R}, float32());
  const float *x = c.data[0].data<float>();
  for (int r = 0; r < R; r++) {
    double acc = op == ReduceOp::Sum ? 0 : op == ReduceOp::Prod ? 1 : op == ReduceOp::Max ? -INFINITY : INFINITY;
    for (int l = 0; l < L; l++) {
      double v = x[r * L + l];
      switch (op) {
        case ReduceOp::Sum: acc += v; break;
        case ReduceOp::Prod: acc *= v; break;
        case ReduceOp::Max: acc = std::max(acc, v); break;
        case ReduceOp::Min: acc = std::min(acc, v); break;
      }
    }
    c.expected.data<float>()[r] = static_cast<float>(acc);
  }
  return c;
}

// The row form of the search space: `lanes` partial results per row,
// computed at the row, parallel over the rows, and the final reduction over
// those lanes vectorized (one horizontal reduction, Halide's
// atomic().vectorize).
Schedule row_form(const RefCase &c, int lanes) {
  Schedule s({c.output});
  s.split("S", "k", lanes);
  std::string rf = s.rfactor("S", "k_i");
  s.reorder(rf, {"r", "k_o", "k_i"});
  s.vectorize(rf, "k_i");
  s.compute_at(rf, "S", "r");
  s.parallel("S", "r");
  s.vectorize("S", "k_i");
  return s;
}

TEST(RFactor, LargeSumParallelOverOuterPart) {
  // [1, 100003] -> [1]: odd extent, 4096 does not divide it (25 chunks, the last one partial).
  RefCase c = row_reduce_case(ReduceOp::Sum, 1, 100003);
  Schedule s({c.output});
  s.split("S", "k", 4096);
  std::string rf = s.rfactor("S", "k_o");
  EXPECT_EQ(rf, "S.rf");
  const StageInfo &p = s.stage(rf);
  ASSERT_EQ(p.spatial_axes, (std::vector<std::string>{"k_o", "r"}));
  EXPECT_EQ(p.shape, (Shape{25, 1}));
  ASSERT_EQ(p.reduce_axes.size(), 1u);
  EXPECT_EQ(p.reduce_axes[0].var.name(), "k_i");
  EXPECT_EQ(p.reduce_axes[0].extent, 4096);
  const StageInfo &f = s.stage("S");
  ASSERT_EQ(f.leaves.size(), 2u);
  EXPECT_EQ(f.leaves[1].name, "k_o");
  EXPECT_TRUE(f.leaves[1].is_reduce);
  EXPECT_EQ(f.leaves[1].extent, 25);
  EXPECT_EQ(f.reads, (std::vector<std::string>{"S.rf"}));
  // Stage order stays producer-first.
  EXPECT_EQ(s.stages()[0].name, "S.rf");
  // Parallel over the chunks, vectorised across chunks inside each parallel task.
  auto [uo, ui] = s.split(rf, "k_o", 8);
  s.parallel(rf, uo);
  s.reorder(rf, {uo, "r", "k_i", ui});
  s.vectorize(rf, ui);
  expect_correct(s, c, 1e-4, 1e-3);

  // Plain: parallel over u only.
  Schedule t({c.output});
  t.split("S", "k", 4096);
  t.parallel(t.rfactor("S", "k_o"), "k_o");
  expect_correct(t, c, 1e-4, 1e-3);
}

TEST(RFactor, LargeSumVectorisedInnerPart) {
  RefCase c = row_reduce_case(ReduceOp::Sum, 1, 100003);
  Schedule s({c.output});
  s.split("S", "k", 16);
  std::string rf = s.rfactor("S", "k_i");
  // rf(k_i, r) reduces over k_o (6251 iterations, the last one partial): k_i innermost, vectorised.
  s.reorder(rf, {"r", "k_o", "k_i"});
  s.vectorize(rf, "k_i");
  s.split("S", "k_i", 4);
  s.unroll("S", "k_i_i");
  expect_correct(s, c, 1e-4, 1e-3);
}

TEST(RFactor, RowwiseReductionsVectoriseInnerPart) {
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Sum, ReduceOp::Min, ReduceOp::Prod}) {
    RefCase c = op == ReduceOp::Prod ? row_reduce_case(op, 5, 3001, 0.999, 1.001) : row_reduce_case(op, 5, 3001);
    SCOPED_TRACE(c.name);
    {
      Schedule s({c.output});
      s.split("S", "k", 8);  // 376 * 8 = 3008: the last chunk is partial
      std::string rf = s.rfactor("S", "k_i");
      s.reorder(rf, {"r", "k_o", "k_i"});
      s.vectorize(rf, "k_i");
      s.compute_at(rf, "S", "r");
      s.parallel("S", "r");
      expect_correct(s, c);
    }
    {
      // Outer part factored, computed at root and parallel over the chunks and rows.
      Schedule s({c.output});
      s.split_nparts("S", "k", 7);
      std::string rf = s.rfactor("S", "k_o");
      std::string f = s.fuse(rf, "k_o", "r");
      s.parallel(rf, f);
      s.split(rf, "k_i", 4);
      s.unroll(rf, "k_i_i");
      expect_correct(s, c);
    }
  }
}

// The row form (row_form) with 64 lanes of partial results per row. Equal to
// the reference for every reduce op; a NaN in a row makes its max and min NaN
// (IEEE 754-2019 maximum / minimum, as ONNX), whichever lane holds it.
// Vectorizing a reduce loop is refused where the stage has another one.
TEST(RFactor, RowLanesReducedHorizontally) {
  auto row_lanes = [](const RefCase &c) { return row_form(c, 64); };  // 1001 = 15 * 64 + 41: the last chunk is partial
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Sum, ReduceOp::Min, ReduceOp::Prod}) {
    RefCase c = op == ReduceOp::Prod ? row_reduce_case(op, 6, 1001, 0.999, 1.001) : row_reduce_case(op, 6, 1001);
    SCOPED_TRACE(c.name);
    expect_correct(row_lanes(c), c);
  }
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
    RefCase c = row_reduce_case(op, 6, 1001);
    SCOPED_TRACE(c.name);
    float *x = c.data[0].data<float>();
    x[1 * 1001 + 3] = NAN;     // row 1, lane 3 of the first chunk
    x[4 * 1001 + 1000] = NAN;  // row 4, in the partial last chunk
    c.expected.data<float>()[1] = NAN;
    c.expected.data<float>()[4] = NAN;
    expect_correct(row_lanes(c), c);
  }
  // Two reduce loops: vectorizing one would race on the accumulator.
  RefCase c = row_reduce_case(ReduceOp::Sum, 6, 1001);
  Schedule s({c.output});
  s.split("S", "k", 64);
  std::string e = error_of([&] { s.vectorize("S", "k_i"); });
  EXPECT_NE(e.find("only reduce loop"), std::string::npos) << e;
}

// The partial last chunk of a vectorized rfactor adds the reduction's
// identity in its missing lanes: no predicated (masked) store of the
// accumulator, which the next read of the whole vector would stall on, and
// Halide peels the chunk off the loop. Rows of 197 (ViT's softmax) in chunks
// of 16 lanes: equal to the reference for max and sum.
TEST(RFactor, PartialChunkAddsTheIdentityUnpredicated) {
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Sum}) {
    RefCase c = row_reduce_case(op, 7, 197);
    SCOPED_TRACE(c.name);
    Schedule s = row_form(c, 16);  // 13 * 16 = 208
    expect_correct(s, c);
    const std::string stmt = Kernel::build(s).lowered_stmt();
    EXPECT_EQ(stmt.find("predicate"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("_r$x, 0, 12)"), std::string::npos) << "12 whole chunks, then the partial one peeled:\n" << stmt;
  }
}

TEST(RFactor, Gemm) {
  RefCase c = testing::gemm_case(23, 34, 19);
  {
    Schedule s({c.output});
    s.split("C", "k", 4);  // 19 = 4 * 5 - 1
    s.split("C", "i", 8);
    std::string rf = s.rfactor("C", "k_o");
    EXPECT_EQ(s.stage(rf).shape, (Shape{5, 23, 34}));
    s.parallel(rf, "k_o");
    auto [jo, ji] = s.split(rf, "j", 8);
    s.reorder(rf, {"k_o", "i", jo, "k_i", ji});
    s.vectorize(rf, ji);
    s.vectorize("C", "j");  // spatial loops of C stay schedulable
    expect_correct(s, c);
  }
  {
    // Inner part, partial results computed per row of C.
    Schedule s({c.output});
    s.split("C", "k", 4);
    std::string rf = s.rfactor("C", "k_i");
    s.compute_at(rf, "C", "i");
    s.reorder(rf, {"i", "j", "k_o", "k_i"});
    s.vectorize(rf, "k_i");
    s.reorder("C", {"i", "k_i", "j"});
    expect_correct(s, c);
  }
  {
    // The whole reduce axis factored: nothing left to reduce, the partial stage is elementwise.
    Schedule s({c.output});
    std::string rf = s.rfactor("C", "k");
    EXPECT_FALSE(s.stage(rf).is_reduction());
    expect_correct(s, c);
    s.compute_inline(rf);
    expect_correct(s, c);
  }
  {
    // After cache_write: the accumulator stage is the one factored.
    Schedule s({c.output});
    std::string L = s.cache_write("C");
    s.split(L, "k", 5);
    std::string rf = s.rfactor(L, "k_o");
    EXPECT_EQ(rf, "C.local.rf");
    s.parallel(rf, "k_o");
    s.compute_at(L, "C", "i");
    expect_correct(s, c);
  }
  {
    // A cache of the partial results read by the final reduction.
    Schedule s({c.output});
    s.split("C", "k", 3);
    std::string rf = s.rfactor("C", "k_i");
    std::string cr = s.cache_read(rf, {"C"});
    s.compute_at(cr, "C", "i");
    expect_correct(s, c);
  }
}

TEST(RFactor, ConvOneOfSeveralReduceAxes) {
  RefCase c = testing::conv_case(1, 5, 7, 6, 3);
  Schedule s({c.output});
  s.split("conv", "rc", 2);
  std::string rf = s.rfactor("conv", "rc_o");
  EXPECT_EQ(s.stage(rf).reduce_axes.size(), 3u);  // rc_i, ry, rx
  s.parallel(rf, "rc_o");
  s.compute_at("pad", rf, "rc_o");
  s.compute_at("conv", "relu", "k");
  expect_correct(s, c);
}

TEST(RFactor, IllegalUsesNameStepAndAxis) {
  RefCase c = testing::conv_case(1, 2, 6, 6, 3);
  {
    Schedule s({c.output});
    std::string e = error_of([&] { s.rfactor("conv", "h"); });
    EXPECT_NE(e.find("rfactor(conv, h)"), std::string::npos) << e;
    EXPECT_NE(e.find("not a reduce axis"), std::string::npos) << e;
    e = error_of([&] { s.rfactor("relu", "k"); });
    EXPECT_NE(e.find("not a reduction"), std::string::npos) << e;
    e = error_of([&] { s.rfactor("conv", "zz"); });
    EXPECT_NE(e.find("zz"), std::string::npos) << e;
    e = error_of([&] { s.rfactor("nope", "rc"); });
    EXPECT_NE(e.find("nope"), std::string::npos) << e;
    // Reduce axes fused: neither the fused axis nor another one can be factored.
    s.fuse("conv", "ry", "rx");
    e = error_of([&] { s.rfactor("conv", "ry_rx_f"); });
    EXPECT_NE(e.find("rfactor(conv, ry_rx_f)"), std::string::npos) << e;
    EXPECT_NE(e.find("one split"), std::string::npos) << e;
    e = error_of([&] { s.rfactor("conv", "rc"); });
    EXPECT_NE(e.find("rfactor(conv, rc)"), std::string::npos) << e;
    e = error_of([&] { s.rfactor("conv", "ry"); });
    EXPECT_NE(e.find("already split or fused"), std::string::npos) << e;
    EXPECT_EQ(s.trace().size(), 1u);  // rejected steps are not recorded
    expect_correct(s, c);
  }
  {
    Schedule s({c.output});
    s.split("conv", "rc", 2);
    s.split("conv", "rc_o", 1);  // nested split
    std::string e = error_of([&] { s.rfactor("conv", "rc_o_o"); });
    EXPECT_NE(e.find("rfactor(conv, rc_o_o)"), std::string::npos) << e;
    e = error_of([&] { s.rfactor("conv", "rc_i"); });
    EXPECT_NE(e.find("rc_i"), std::string::npos) << e;
    expect_correct(s, c);
  }
  {
    Schedule s({c.output});
    s.split("conv", "rx", 2);
    // Another reduce axis already split.
    EXPECT_NE(error_of([&] { s.rfactor("conv", "ry"); }).find("rfactor(conv, ry)"), std::string::npos);
    std::string rf = s.rfactor("conv", "rx_o");
    // Twice, of the partial stage, cache_write after.
    EXPECT_NE(error_of([&] { s.rfactor("conv", "rx_o"); }).find("already factored"), std::string::npos);
    EXPECT_NE(error_of([&] { s.rfactor(rf, "rc"); }).find("rfactor stage"), std::string::npos);
    EXPECT_NE(error_of([&] { s.cache_write("conv"); }).find("before rfactor"), std::string::npos);
    // The final reduction's axis is reduce: no parallel/vectorize there.
    EXPECT_NE(error_of([&] { s.parallel("conv", "rx_o"); }).find("rx_o"), std::string::npos);
    expect_correct(s, c);
  }
  {
    // A stage computed at a reduce loop that rfactor would remove.
    Schedule s({c.output});
    s.split("conv", "rc", 1);
    s.compute_at("pad", "conv", "rc_i");
    std::string e = error_of([&] { s.rfactor("conv", "rc_o"); });
    EXPECT_NE(e.find("rc_i"), std::string::npos) << e;
    // ... or at a loop it keeps, while its consumer becomes the partial stage (computed at root).
    Schedule t({c.output});
    t.compute_at("pad", "conv", "rc");
    e = error_of([&] { t.rfactor("conv", "rc"); });
    EXPECT_NE(e.find("rfactor(conv, rc)"), std::string::npos) << e;
    EXPECT_EQ(t.stages().size(), 3u);
    EXPECT_EQ(t.stage("conv").reads, (std::vector<std::string>{"pad", "W"}));
    expect_correct(t, c);
  }
}

TEST(RFactor, TraceJsonRoundTrip) {
  RefCase c = testing::gemm_case(9, 10, 13);
  Schedule s({c.output});
  s.split("C", "k", 4);
  std::string rf = s.rfactor("C", "k_o");
  s.parallel(rf, "k_o");
  s.split(rf, "j", 4);
  s.vectorize(rf, "j_i");
  s.compute_at(rf, "C", "i");
  std::string json = trace_to_json(s);
  EXPECT_NE(json.find("\"rfactor\""), std::string::npos) << json;
  Schedule r = replay({c.output}, trace_from_json(json, {c.output}));
  EXPECT_EQ(r.trace(), s.trace());
  EXPECT_EQ(trace_to_json(r), json);
  ASSERT_EQ(r.stages().size(), s.stages().size());
  for (size_t i = 0; i < s.stages().size(); i++) {
    EXPECT_EQ(r.stages()[i].name, s.stages()[i].name);
    EXPECT_EQ(r.stages()[i].leaves.size(), s.stages()[i].leaves.size());
  }
  expect_correct(r, c);
  // Replaying an illegal rfactor names the step.
  try {
    replay({c.output}, {RfactorStep{"C", "j"}});
    ADD_FAILURE() << "expected ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("rfactor(C, j)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
