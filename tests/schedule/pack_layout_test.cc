// pack_layout: a cache_read copy stored in panels still computes what the
// reference computes, wherever it is computed and however its loops are
// scheduled; illegal uses raise ScheduleError naming the step and the reason.
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

TEST(PackLayout, GemmPanelsAtRootChangeTheCopysAxes) {
  RefCase c = testing::gemm_case(24, 40, 16);  // B is [16, 40]
  Schedule s({c.output});
  std::string B = s.cache_read("B", {"C"});
  auto [o, i] = s.pack_layout(B, "ax1", 8);
  const StageInfo &st = s.stage(B);
  EXPECT_EQ(st.spatial_axes, (std::vector<std::string>{o, "ax0", i}));
  EXPECT_EQ(st.shape, (Shape{5, 16, 8}));
  s.parallel(B, o);
  s.vectorize(B, i);
  auto [jo, ji] = s.split("C", "j", 8);
  s.reorder("C", {jo, "i", "k", ji});
  s.vectorize("C", ji);
  expect_correct(s, c);
}

TEST(PackLayout, PanelsComputedAtATileWithATailedSplit) {
  RefCase c = testing::gemm_case(13, 24, 9);
  Schedule s({c.output});
  std::string L = s.cache_write("C");
  std::string B = s.cache_read("B", {L});
  s.pack_layout(B, "ax1", 4);
  auto [io, ii] = s.split("C", "i", 5);  // 13 = 2 * 5 + 3: a tail
  s.compute_at(L, "C", io);
  s.compute_at(B, L, "i");
  s.unroll(B, "ax1_i");
  expect_correct(s, c);
}

TEST(PackLayout, ConvWeightsPackedByOutputChannel) {
  RefCase c = testing::conv_case(1, 4, 6, 6, 8);  // W is [8, 4, 3, 3]
  Schedule s({c.output});
  std::string W = s.cache_read("W", {"conv"});
  s.pack_layout(W, "ax0", 4);
  EXPECT_EQ(s.stage(W).shape, (Shape{2, 4, 3, 3, 4}));
  s.compute_at(W, "conv", "h");
  expect_correct(s, c);
  // The trace replays to the same stages and result.
  Schedule r = replay({c.output}, trace_from_json(trace_to_json(s), {c.output}));
  EXPECT_EQ(r.trace(), s.trace());
  EXPECT_EQ(r.stage(W).spatial_axes, s.stage(W).spatial_axes);
  expect_correct(r, c);
}

// A panel as wide as the axis moves it innermost: the whole weight
// transposed to [I, H, W, O] (the layout of a 4-vector channel block).
TEST(PackLayout, OnePanelAsWideAsTheAxisTransposes) {
  RefCase c = testing::conv_case(1, 4, 6, 6, 8);  // W is [8, 4, 3, 3]
  Schedule s({c.output});
  std::string W = s.cache_read("W", {"conv"});
  auto [o, i] = s.pack_layout(W, "ax0", 8);
  EXPECT_EQ(s.stage(W).shape, (Shape{1, 4, 3, 3, 8}));
  s.vectorize(W, i);
  expect_correct(s, c);
}

TEST(PackLayout, IllegalUsesAreRejectedAndLeaveTheScheduleUsable) {
  RefCase c = testing::gemm_case(8, 12, 6);
  Schedule s({c.output});
  EXPECT_NE(error_of([&] { s.pack_layout("C", "j", 4); }).find("not a cache_read stage"), std::string::npos);
  std::string B = s.cache_read("B", {"C"});
  std::string e = error_of([&] { s.pack_layout(B, "ax1", 5); });
  EXPECT_NE(e.find("pack_layout(" + B + ", ax1, 5)"), std::string::npos) << e;
  EXPECT_NE(e.find("divide the extent 12"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { s.pack_layout(B, "ax1", 24); }).find("divide the extent 12"), std::string::npos);
  EXPECT_NE(error_of([&] { s.pack_layout(B, "ax1", 1); }).find("at least 2"), std::string::npos);
  EXPECT_NE(error_of([&] { s.pack_layout(B, "zz", 2); }).find("no root axis 'zz'"), std::string::npos);
  s.split(B, "ax0", 2);
  EXPECT_NE(error_of([&] { s.pack_layout(B, "ax1", 4); }).find("before other steps"), std::string::npos);
  Schedule t({c.output});
  std::string B2 = t.cache_read("B", {"C"});
  t.pack_layout(B2, "ax1", 4);
  EXPECT_NE(error_of([&] { t.pack_layout(B2, "ax0", 2); }).find("already packed"), std::string::npos);
  expect_correct(s, c);
  expect_correct(t, c);
}

}  // namespace
}  // namespace tetune
