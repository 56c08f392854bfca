// Constant inputs packed once (codegen/prepack.h): pack_input stores an array
// as the schedule's packed copy does; a kernel built with the input prepacked
// computes what the reference computes from the packed array, refuses the
// unpacked one, and only inputs that are constants copied at root in panels,
// and read through that copy alone, are prepackable.
#include <gtest/gtest.h>

#include "codegen/kernel.h"
#include "codegen/prepack.h"
#include "base/errors.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

int input_index(const Schedule &s, const std::string &name) {
  for (size_t i = 0; i < s.inputs().size(); i++)
    if (s.inputs()[i].name() == name) return static_cast<int>(i);
  return -1;
}

TEST(Prepack, PackInputMovesEveryElementToItsPanel) {
  NDArray src = NDArray::random({3, 8, 5}, float32(), 7);
  PrepackedInput p;
  p.stage = "W.cache";
  p.axis = 1;
  p.factor = 4;
  p.source_shape = {3, 8, 5};
  p.packed_shape = {2, 3, 5, 4};
  NDArray got = pack_input(src, p);
  ASSERT_EQ(got.shape(), p.packed_shape);
  for (int a = 0; a < 3; a++)
    for (int e = 0; e < 8; e++)
      for (int b = 0; b < 5; b++)
        EXPECT_EQ(got.get(((e / 4 * 3 + a) * 5 + b) * 4 + e % 4), src.get((a * 8 + e) * 5 + b)) << a << " " << e << " " << b;
  p.source_shape = {3, 8, 6};
  EXPECT_THROW(pack_input(src, p), ShapeError);
}

// The last axis packed (inner 1: a GEMM's B along N) is copied in runs of a
// whole panel row; every element must still land where the general case puts it.
TEST(Prepack, PackInputAlongTheLastAxis) {
  NDArray src = NDArray::random({5, 12}, float32(), 11);
  PrepackedInput p;
  p.stage = "B.cache";
  p.axis = 1;
  p.factor = 4;
  p.source_shape = {5, 12};
  p.packed_shape = {3, 5, 4};
  NDArray got = pack_input(src, p);
  ASSERT_EQ(got.shape(), p.packed_shape);
  for (int a = 0; a < 5; a++)
    for (int e = 0; e < 12; e++) EXPECT_EQ(got.get((e / 4 * 5 + a) * 4 + e % 4), src.get(a * 12 + e)) << a << " " << e;
}

TEST(Prepack, GemmWithPanelsAtRootRunsOnThePackedWeight) {
  testing::RefCase c = testing::gemm_case(24, 48, 16);  // B is [16, 48]
  Schedule s({c.output});
  std::string B = s.cache_read("B", {"C"});
  auto [o, i] = s.pack_layout(B, "ax1", 16);
  s.parallel(B, o);
  s.vectorize(B, i);
  auto [jo, ji] = s.split("C", "j", 16);
  s.reorder("C", {jo, "i", "k", ji});
  s.vectorize("C", ji);
  const int b = input_index(s, "B"), a = input_index(s, "A");
  ASSERT_GE(b, 0);

  EXPECT_TRUE(prepackable_inputs(s, {}).empty()) << "B is not a constant";
  EXPECT_TRUE(prepackable_inputs(s, {a}).empty()) << "A has no packed copy";
  std::vector<PrepackedInput> pre = prepackable_inputs(s, {a, b});
  ASSERT_EQ(pre.size(), 1u);
  EXPECT_EQ(pre[0].input, b);
  EXPECT_EQ(pre[0].stage, B);
  EXPECT_EQ(pre[0].axis, 1);
  EXPECT_EQ(pre[0].factor, 16);
  EXPECT_EQ(pre[0].packed_shape, (Shape{3, 16, 16}));

  BuildOptions bo;
  bo.prepacked = pre;
  Kernel k = Kernel::build(s, Target{}, bo);
  std::vector<NDArray> in = c.data;
  in[b] = pack_input(c.data[b], pre[0]);
  std::string where;
  EXPECT_TRUE(all_close(k.run(in)[0], c.expected, 1e-4, 1e-5, &where)) << where;
  EXPECT_THROW(k.run(c.data), RuntimeError) << "the unpacked weight has the wrong shape";

  // The kernel no longer computes the copy.
  ASSERT_NE(Kernel::build(s).lowered_stmt().find("f_B_cache"), std::string::npos) << "the copy's Func is named so";
  EXPECT_EQ(k.lowered_stmt().find("f_B_cache"), std::string::npos) << k.lowered_stmt();
}

TEST(Prepack, CopiesAtATileOrBesideDirectReadsAreNotPrepackable) {
  testing::RefCase c = testing::gemm_case(13, 24, 9);
  {
    Schedule s({c.output});
    std::string L = s.cache_write("C");
    std::string B = s.cache_read("B", {L});
    s.pack_layout(B, "ax1", 4);
    auto [io, ii] = s.split("C", "i", 5);
    s.compute_at(L, "C", io);
    s.compute_at(B, L, "i");
    EXPECT_TRUE(prepackable_inputs(s, {input_index(s, "B")}).empty()) << "packed per tile, not at root";
  }
  {
    Schedule s({c.output});
    std::string B = s.cache_read("B", {"C"});
    EXPECT_TRUE(prepackable_inputs(s, {input_index(s, "B")}).empty()) << "a plain copy, not packed";
  }
}

TEST(Prepack, LoweringRefusesAPrepackedInputItsStageDoesNotPack) {
  testing::RefCase c = testing::gemm_case(8, 16, 4);
  Schedule s({c.output});
  std::string B = s.cache_read("B", {"C"});
  s.pack_layout(B, "ax1", 8);
  std::vector<PrepackedInput> pre = prepackable_inputs(s, {input_index(s, "B")});
  ASSERT_EQ(pre.size(), 1u);
  pre[0].input = input_index(s, "A");
  BuildOptions bo;
  bo.prepacked = pre;
  try {
    Kernel::build(s, Target{}, bo);
    FAIL() << "built";
  } catch (const CodegenError &e) {
    EXPECT_NE(std::string(e.what()).find(B), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
