// Each schedule primitive on its own: the result equals the reference, and
// illegal uses raise ScheduleError naming the step and the axis.
#include <gtest/gtest.h>

#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

using testing::RefCase;

void expect_correct(const Schedule &s, const RefCase &c) {
  auto got = Kernel::build(s).run(c.data);
  std::string where;
  EXPECT_TRUE(all_close(got[0], c.expected, 1e-4, 1e-5, &where)) << where << "\n" << trace_to_json(s);
}

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const ScheduleError &e) {
    return e.what();
  }
  return "";
}

TEST(Primitives, SplitEachTailStrategy) {
  RefCase c = testing::gemm_case(13, 20, 7);
  for (auto tail : {TailStrategy::Auto, TailStrategy::GuardWithIf}) {
    Schedule s({c.output});
    s.split("C", "i", 4, tail);
    s.split("C", "k", 3);
    expect_correct(s, c);
  }
  {
    // Shifting inwards would redo part of a reduction: rejected there, legal on an elementwise output.
    Schedule s({c.output});
    EXPECT_THROW(s.split("C", "i", 4, TailStrategy::ShiftInwards), ScheduleError);
    RefCase conv = testing::conv_case(1, 2, 7, 10, 3);  // padded width 12: round_up by 4 is exact
    Schedule t({conv.output});
    t.split("relu", "w", 4, TailStrategy::ShiftInwards);
    t.split("pad", "w", 4, TailStrategy::RoundUp);
    expect_correct(t, conv);
  }
  Schedule s({c.output});
  EXPECT_THROW(s.split("C", "j", 5, TailStrategy::RoundUp), ScheduleError);  // Halide: not on an update
  s.split_nparts("C", "i", 3);
  expect_correct(s, c);
}

TEST(Primitives, FuseReorderAnnotations) {
  RefCase c = testing::gemm_case(16, 24, 9);
  Schedule s({c.output});
  std::string f = s.fuse("C", "i", "j");
  auto [o, in] = s.split("C", f, 8);
  s.parallel("C", o);
  s.vectorize("C", in);
  s.unroll("C", "k");
  s.reorder("C", {"k", o});
  expect_correct(s, c);
}

// fuse(outer, inner) iterates the inner axis fastest, as a nest of the two
// would: 8 lanes of the fused loop are 8 neighbouring columns, a dense store
// (Halide's fuse takes the inner axis first; swapped, every lane was a row).
TEST(Primitives, FuseIteratesTheInnerAxisFastest) {
  RefCase c = testing::gemm_case(16, 24, 9);
  Schedule s({c.output});
  std::string f = s.fuse("C", "i", "j");
  auto [o, in] = s.split("C", f, 8);
  s.vectorize("C", in);
  expect_correct(s, c);
  Kernel k = Kernel::build(s);
  int stores = 0;
  for (const auto &a : k.loop_nest().accesses)
    if (a.is_store && a.lanes == 8) {
      stores++;
      EXPECT_TRUE(a.dense) << k.loop_nest().str();
    }
  EXPECT_GT(stores, 0) << k.loop_nest().str();
}

TEST(Primitives, ComputeAtInlineRootCaches) {
  RefCase c = testing::conv_case(1, 4, 8, 8, 8);
  {
    Schedule s({c.output});
    s.compute_inline("pad");
    s.compute_at("conv", "relu", "h");
    expect_correct(s, c);
  }
  {
    Schedule s({c.output});
    s.compute_at("pad", "conv", "k");
    std::string cw = s.cache_write("conv");
    s.compute_at(cw, "conv", "h");
    std::string cr = s.cache_read("W", {cw});
    s.compute_at(cr, cw, "k");
    expect_correct(s, c);
  }
}

TEST(Primitives, SoftmaxStages) {
  RefCase c = testing::softmax_case(6, 33);
  Schedule s({c.output});
  s.compute_inline("sexp");
  // smax is read by ssum too: ssum must be inside the loop before smax may move there.
  EXPECT_THROW(s.compute_at("smax", "softmax", "r"), ScheduleError);
  s.compute_at("ssum", "softmax", "r");
  s.compute_at("smax", "softmax", "r");
  EXPECT_THROW(s.compute_root("ssum"), ScheduleError);  // would leave a use of smax outside its loop
  auto [lo, li] = s.split("softmax", "l", 8);
  s.vectorize("softmax", li);
  s.parallel("softmax", "r");
  expect_correct(s, c);
}

TEST(Primitives, IllegalStepsNameStepAndAxis) {
  RefCase c = testing::conv_case(1, 2, 6, 6, 3);
  Schedule s({c.output});
  EXPECT_NE(error_of([&] { s.split("conv", "zz", 2); }).find("zz"), std::string::npos);
  s.fuse("conv", "h", "w");
  std::string e = error_of([&] { s.split("conv", "h", 2); });
  EXPECT_NE(e.find("split(conv, h"), std::string::npos) << e;
  EXPECT_NE(e.find("already split or fused"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { s.compute_at("conv", "pad", "h"); }).find("does not consume"), std::string::npos);
  EXPECT_NE(error_of([&] { s.compute_inline("conv"); }).find("reduction"), std::string::npos);
  EXPECT_NE(error_of([&] { s.vectorize("conv", "rc"); }).find("rc"), std::string::npos);
  EXPECT_NE(error_of([&] { s.split("conv", "n", 0); }).find("positive"), std::string::npos);
  EXPECT_NE(error_of([&] { s.fuse("conv", "n", "rc"); }).find("enclose"), std::string::npos);
  EXPECT_NE(error_of([&] { s.bind("conv", "n", "warp.x"); }).find("warp.x"), std::string::npos);
  // The schedule is still usable after rejected steps.
  expect_correct(s, c);
}

TEST(Trace, JsonRoundTripAndBadJson) {
  RefCase c = testing::gemm_case(8, 8, 8);
  Schedule s({c.output});
  s.tile("C", "i", "j", 4, 4);
  s.vectorize("C", "j_i");
  Schedule r = replay({c.output}, trace_from_json(trace_to_json(s), {c.output}));
  EXPECT_EQ(r.trace(), s.trace());
  EXPECT_EQ(r.stage("C").leaves.size(), s.stage("C").leaves.size());
  EXPECT_THROW(trace_from_json("{not json", {c.output}), ParseError);
  EXPECT_THROW(trace_from_json("{\"steps\": [{\"stage\": \"C\"}]}", {c.output}), ParseError);
  EXPECT_THROW(replay({c.output}, {SplitStep{"C", "q", 2}}), ScheduleError);
}

}  // namespace
}  // namespace tetune

namespace tetune {
namespace {
// Regression: accumulator computed at a column tile with the reduce loop split and moved outermost.
TEST(Primitives, CacheWriteReorderReduceOutermost) {
  RefCase c = testing::gemm_case(64, 48, 40);
  Schedule s({c.output});
  std::string L = s.cache_write("C");
  s.split("C", "i", 16);
  s.split("C", "j", 3);
  s.reorder("C", {"i_o", "j_o", "i_i", "j_i"});
  s.compute_at(L, "C", "j_o");
  s.split(L, "k", 4);
  s.reorder(L, {"k_o", "i", "j", "k_i"});
  expect_correct(s, c);
}
}  // namespace
}  // namespace tetune
