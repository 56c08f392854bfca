// Every primitive that takes a stage name also takes the stage's Tensor: the
// two spellings record the same trace, and a tensor without a stage is refused.
#include <gtest/gtest.h>

#include "base/errors.h"
#include "schedule/schedule.h"

namespace tetune {
namespace {

// out = relu(A x B) + 1, with the product C and the relu R as their own stages.
struct Dag {
  Tensor A, B, C, R, out;
};

Dag make_dag(const std::string &relu_name = "R") {
  Dag d;
  d.A = placeholder({16, 12}, float32(), "A");
  d.B = placeholder({12, 24}, float32(), "B");
  IterVar k = reduce_axis(12, "k");
  d.C = compute({16, 24}, [&](const std::vector<Var> &i) { return sum(d.A(i[0], k) * d.B(k, i[1]), {k}); }, "C", "matmul",
                {"i", "j"});
  d.R = compute({16, 24}, [&](const std::vector<Var> &i) { return max(d.C(i[0], i[1]), Expr(0.0f)); }, relu_name, "relu",
                {"i", "j"});
  d.out = compute({16, 24}, [&](const std::vector<Var> &i) { return d.R(i[0], i[1]) + 1.0f; }, "out", "add", {"i", "j"});
  return d;
}

TEST(StageByTensor, LoopAndLocationPrimitivesRecordTheSameTrace) {
  Dag d = make_dag();
  Schedule by_name({d.out}), by_tensor({d.out});

  EXPECT_EQ(by_name.cache_read("B", {"C"}), by_tensor.cache_read(d.B, std::vector<Tensor>{d.C}));
  by_name.compute_inline("R"), by_tensor.compute_inline(d.R);
  EXPECT_EQ(by_name.tile("out", "i", "j", 4, 8), by_tensor.tile(d.out, "i", "j", 4, 8));
  EXPECT_EQ(by_name.fuse("out", "i_o", "j_o"), by_tensor.fuse(d.out, "i_o", "j_o"));
  by_name.parallel("out", "i_o_j_o_f"), by_tensor.parallel(d.out, "i_o_j_o_f");
  by_name.vectorize("out", "j_i"), by_tensor.vectorize(d.out, "j_i");
  by_name.compute_at("C", "out", "i_o_j_o_f"), by_tensor.compute_at(d.C, d.out, "i_o_j_o_f");
  EXPECT_EQ(by_name.split("C", "k", 4, TailStrategy::GuardWithIf), by_tensor.split(d.C, "k", 4, TailStrategy::GuardWithIf));
  EXPECT_EQ(by_name.split_nparts("C", "i", 2), by_tensor.split_nparts(d.C, "i", 2));
  by_name.reorder("C", {"k_o", "k_i"}), by_tensor.reorder(d.C, {"k_o", "k_i"});
  by_name.unroll("C", "k_i"), by_tensor.unroll(d.C, "k_i");
  by_name.reorder_storage("C", {"j", "i"}), by_tensor.reorder_storage(d.C, {"j", "i"});
  by_name.compute_root("C"), by_tensor.compute_root(d.C);

  EXPECT_EQ(by_name.trace().size(), 15u);  // tile is three steps
  EXPECT_EQ(by_tensor.trace(), by_name.trace());
  EXPECT_EQ(&by_tensor.stage(d.C), &by_tensor.stage("C"));
}

TEST(StageByTensor, CachesRfactorAndBindRecordTheSameTrace) {
  Dag d = make_dag();
  Schedule by_name({d.out}), by_tensor({d.out});
  EXPECT_EQ(by_name.cache_read("A", std::vector<std::string>{"C"}), by_tensor.cache_read(d.A, std::vector<std::string>{"C"}));
  EXPECT_EQ(by_name.rfactor("C", "k"), by_tensor.rfactor(d.C, "k"));
  EXPECT_EQ(by_name.cache_write("R"), by_tensor.cache_write(d.R));
  by_name.bind("out", "i", "blockIdx.x"), by_tensor.bind(d.out, "i", "blockIdx.x");
  EXPECT_EQ(by_name.trace().size(), 4u);
  EXPECT_EQ(by_tensor.trace(), by_name.trace());
}

TEST(StageByTensor, ATensorMeansItsStageEvenWhenNamesRepeat) {
  Dag d = make_dag("C");  // the relu is also called "C": its stage is "C_1"
  Schedule s({d.out});
  s.split(d.R, "i", 4);
  EXPECT_EQ(step_stage(s.trace().back()), "C_1");
  EXPECT_EQ(s.stage(d.R).name, "C_1");
  s.split(d.C, "i", 4);
  EXPECT_EQ(step_stage(s.trace().back()), "C");
}

TEST(StageByTensor, ATensorWithoutAStageIsRefused) {
  Dag d = make_dag();
  Schedule s({d.out});
  EXPECT_THROW(s.split(d.A, "ax0", 4), ScheduleError);  // a placeholder has no stage
  Tensor elsewhere = compute({4}, [](const std::vector<Var> &i) { return Expr(i[0]); }, "E", "iota", {"i"});
  EXPECT_THROW(s.compute_inline(elsewhere), ScheduleError);
  EXPECT_THROW(s.cache_read(d.B, std::vector<Tensor>{elsewhere}), ScheduleError);
  EXPECT_TRUE(s.trace().empty());
}

}  // namespace
}  // namespace tetune
