#include <set>
#include <gtest/gtest.h>

#include "tests/autotune/gemm_task.h"
#include "autotune/features/features.h"
#include "autotune/features/schedule_nest.h"
#include "codegen/kernel.h"

namespace tetune {
namespace autotune {
namespace {

using testing::gemm_task;

TEST(Features, FixedLengthDeterministicAndDiscriminative) {
  Task t = gemm_task(64);
  ASSERT_EQ(features::feature_names().size(), static_cast<size_t>(features::kNumFeatures));
  Schedule s0(t.outputs);
  Schedule s1(t.outputs);
  s1.cache_write("C");
  auto tiles = s1.tile("C", "i", "j", 8, 16);
  s1.parallel("C", tiles[0]);
  s1.vectorize("C", tiles[3]);
  s1.compute_at("C.local", "C", tiles[1]);
  auto f0 = features::schedule_features(s0, t);
  auto f0b = features::schedule_features(s0, t);
  auto f1 = features::schedule_features(s1, t);
  EXPECT_EQ(f0.size(), static_cast<size_t>(features::kNumFeatures));
  EXPECT_EQ(f1.size(), static_cast<size_t>(features::kNumFeatures));
  EXPECT_EQ(f0, f0b);
  EXPECT_NE(f0, f1);
  // The lowered path gives the features of the JIT-built kernel's loop nest.
  EXPECT_EQ(features::loop_nest_features(Kernel::build(s1).loop_nest(), t, &s1), features::lowered_schedule_features(s1, t));
  // Parallel / vector features are visible.
  auto idx = [](const std::string &n) {
    const auto &v = features::feature_names();
    return std::find(v.begin(), v.end(), n) - v.begin();
  };
  EXPECT_EQ(f0[idx("s.n_parallel")], 0);
  EXPECT_GT(f1[idx("s.n_parallel")], 0);
  EXPECT_GT(f1[idx("all.max.lanes")], 0);
}

// The loop nest built from the schedule state has the loops, regions and
// accesses the schedule implies.
TEST(ScheduleNest, LoopsRegionsAndAccessesOfATiledGemm) {
  Task t = gemm_task(64);  // C[i, j] = sum_k A[i, k] * B[k, j], 64^3
  Schedule s(t.outputs);
  s.cache_write("C");
  auto tiles = s.tile("C", "i", "j", 8, 16);  // io jo ii ji
  s.parallel("C", tiles[0]);
  s.vectorize("C", tiles[3]);
  s.compute_at("C.local", "C", tiles[1]);
  s.vectorize("C.local", "j");
  LoopNest n = features::schedule_loop_nest(s, t);
  // C: io (parallel, 8), jo (4), ii (8); ji is the vector lanes. C.local at jo: i, k, j(vector).
  auto find = [&](const std::string &name) {
    for (size_t i = 0; i < n.loops.size(); i++)
      if (n.loops[i].name == name) return static_cast<int>(i);
    return -1;
  };
  int io = find("C." + tiles[0]), jo = find("C." + tiles[1]), li = find("C.local.i"), lk = find("C.local.k");
  ASSERT_GE(io, 0);
  ASSERT_GE(jo, 0);
  ASSERT_GE(li, 0);
  ASSERT_GE(lk, 0);
  EXPECT_EQ(n.loops[io].kind, "parallel");
  EXPECT_EQ(n.loops[io].extent, 8);
  EXPECT_EQ(n.loops[jo].parent, io);
  EXPECT_EQ(n.loops[li].parent, jo);       // computed at jo
  EXPECT_EQ(n.loops[li].extent, 8);        // one 8x16 tile of C, not all 64 rows
  EXPECT_EQ(n.loops[lk].extent, 64);
  EXPECT_EQ(find("C.local.j"), -1);        // vectorized: lanes, not a loop
  ASSERT_EQ(n.allocations.size(), 1u);
  EXPECT_EQ(n.allocations[0].bytes, 8 * 16 * 4);
  EXPECT_EQ(n.allocations[0].loop, jo);
  int loads_b = 0, loads_a = 0;
  for (const auto &a : n.accesses) {
    if (a.buffer == "B" && !a.is_store) {
      loads_b++;
      EXPECT_EQ(a.lanes, 16);  // B[k, j]: j is the vector axis, last index, stride 1
      EXPECT_TRUE(a.dense);
      EXPECT_EQ(a.loop, lk);
    }
    if (a.buffer == "A" && !a.is_store) {
      loads_a++;
      EXPECT_EQ(a.lanes, 1);  // A[i, k] does not use j: a broadcast scalar
    }
  }
  EXPECT_EQ(loads_a, 1);
  EXPECT_EQ(loads_b, 1);
}

TEST(ScheduleNest, InlinedProducerLoadsItsInputs) {
  Tensor x = placeholder({4, 32}, float32(), "X");
  Tensor r = compute({4, 32}, [&](const std::vector<Var> &i) { return max(x(i[0], i[1]), make_float(0)); }, "R");
  Tensor y = compute({4, 32}, [&](const std::vector<Var> &i) { return r(i[0], i[1]) * make_float(2); }, "Y");
  Task t = make_task("relu2", {y}, Target{}, 1);
  Schedule s(t.outputs);
  s.compute_inline("R");
  LoopNest n = features::schedule_loop_nest(s, t);
  std::set<std::string> bufs;
  for (const auto &a : n.accesses) bufs.insert(a.buffer);
  EXPECT_TRUE(bufs.count("X"));
  EXPECT_FALSE(bufs.count("R"));  // inlined: no buffer of its own
  EXPECT_TRUE(n.allocations.empty());
  Schedule root(t.outputs);  // R at root: its own loops and an allocation
  LoopNest m = features::schedule_loop_nest(root, t);
  ASSERT_EQ(m.allocations.size(), 1u);
  EXPECT_EQ(m.allocations[0].bytes, 4 * 32 * 4);
  EXPECT_GT(m.loops.size(), n.loops.size());
}

}  // namespace
}  // namespace autotune
}  // namespace tetune

namespace tetune {
namespace autotune {
namespace {

// A packed B (pack_layout) read along its panel and an accumulator stored
// channel-innermost (reorder_storage) are dense vector accesses.
TEST(ScheduleNest, PackedAndReorderedBuffersAreDense) {
  Task t = gemm_task(64);
  Schedule s(t.outputs);
  std::string L = s.cache_write("C");
  std::string B = s.cache_read("B", {L});
  s.pack_layout(B, "ax1", 16);
  s.reorder_storage(L, {"j", "i"});
  auto tiles = s.tile("C", "i", "j", 8, 16);
  s.compute_at(L, "C", tiles[1]);
  s.reorder(L, {"k", "i", "j"});
  s.vectorize(L, "j");
  LoopNest n = features::schedule_loop_nest(s, t);
  int packed_loads = 0, local_stores = 0;
  for (const auto &a : n.accesses) {
    if (a.buffer == "B_cache" && !a.is_store) {
      packed_loads++;
      EXPECT_EQ(a.lanes, 16);
      EXPECT_TRUE(a.dense);  // B.cache[j / 16, k, j % 16]
    }
    if (a.buffer == "C_local" && a.is_store) {
      local_stores++;
      EXPECT_EQ(a.lanes, 16);
      EXPECT_FALSE(a.dense);  // stored [j][i]: the j lanes are a column
    }
  }
  EXPECT_EQ(packed_loads, 1);
  EXPECT_EQ(local_stores, 1);
  // The copy itself reads B[ax0, ax1_o * 16 + ax1_i] along ax1_i.
  s.vectorize(B, "ax1_i");
  n = features::schedule_loop_nest(s, t);
  int source_loads = 0;
  for (const auto &a : n.accesses)
    if (a.buffer == "B" && !a.is_store) {
      source_loads++;
      EXPECT_TRUE(a.dense);
    }
  EXPECT_EQ(source_loads, 1);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
