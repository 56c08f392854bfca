// reorder_storage: a stage stored in another axis order computes what the
// reference computes (here an accumulator vectorized along output channels,
// stored channel-innermost); illegal uses raise ScheduleError.
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

TEST(ReorderStorage, ChannelVectorizedAccumulatorStoredChannelInnermost) {
  RefCase c = testing::conv_case(1, 4, 6, 7, 16);  // conv [1, 16, 6, 7], then bias + relu
  Schedule s({c.output});
  std::string L = s.cache_write("conv");
  s.reorder_storage(L, {"n", "h", "w", "k"});
  std::string W = s.cache_read("W", {L});
  s.pack_layout(W, "ax0", 8);
  auto [co, ci] = s.split("conv", "k", 8);
  s.reorder("conv", {"n", co, "h", ci, "w"});
  s.compute_at(L, "conv", "h");
  auto [lco, lci] = s.split(L, "k", 8);
  s.reorder(L, {"n", lco, "h", "rc", "ry", "rx", "w", lci});
  s.vectorize(L, lci);
  s.unroll(L, "w");
  EXPECT_EQ(s.stage(L).storage_order, (std::vector<std::string>{"n", "h", "w", "k"}));
  expect_correct(s, c);
  Schedule r = replay({c.output}, trace_from_json(trace_to_json(s), {c.output}));
  EXPECT_EQ(r.stage(L).storage_order, s.stage(L).storage_order);
  expect_correct(r, c);
}

TEST(ReorderStorage, IllegalUses) {
  RefCase c = testing::conv_case(1, 2, 5, 5, 4);
  Schedule s({c.output});
  EXPECT_NE(error_of([&] { s.reorder_storage("relu", {"n", "h", "w", "k"}); }).find("is an output"), std::string::npos);
  std::string e = error_of([&] { s.reorder_storage("conv", {"n", "h", "k"}); });
  EXPECT_NE(e.find("reorder_storage(conv, n, h, k)"), std::string::npos) << e;
  EXPECT_NE(e.find("each root spatial axis"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { s.reorder_storage("conv", {"n", "h", "w", "w"}); }).find("once"), std::string::npos);
  s.compute_inline("pad");
  EXPECT_NE(error_of([&] { s.reorder_storage("pad", {"n", "h", "w", "c"}); }).find("inlined"), std::string::npos);
  Schedule t({c.output});
  t.reorder_storage("pad", {"n", "h", "w", "c"});
  EXPECT_NE(error_of([&] { t.compute_inline("pad"); }).find("storage order"), std::string::npos);
  t.reorder_storage("conv", {"w", "h", "k", "n"});
  expect_correct(s, c);
  expect_correct(t, c);
}

}  // namespace
}  // namespace tetune
