// Property test: random legal schedules of matmul, conv2d (+pad, +bias+relu)
// and softmax all compute what the plain-loop reference computes; random
// illegal steps raise ScheduleError and leave the schedule usable. Steps
// include rfactor, after which the partial stage is scheduled at random too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

using testing::RefCase;

template <typename T>
const T &pick(const std::vector<T> &v, std::mt19937_64 &rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

// One random step drawn from the schedule's current state; mostly legal.
Step random_step(const Schedule &s, std::mt19937_64 &rng) {
  const StageInfo &st = pick(s.stages(), rng);
  std::vector<std::string> leaves;
  for (const auto &l : st.leaves) leaves.push_back(l.name);
  const std::string &axis = pick(leaves, rng);
  int64_t extent = st.leaves[st.leaf_index(axis)].extent;
  int kind = std::uniform_int_distribution<int>(0, 10)(rng);
  switch (kind) {
    case 0:
    case 1: {
      int64_t f = std::uniform_int_distribution<int64_t>(1, extent + 2)(rng);
      std::string tail = pick(std::vector<std::string>{"", "", "guard_with_if", "round_up", "shift_inwards"}, rng);
      bool nparts = kind == 1 && rng() % 3 == 0;
      return SplitStep{st.name, axis, f, nparts, tail.empty() ? TailStrategy::Auto : parse_tail_strategy(tail)};
    }
    case 2: {
      int i = st.leaf_index(axis);
      if (i + 1 < static_cast<int>(leaves.size())) return FuseStep{st.name, axis, leaves[i + 1]};
      return FuseStep{st.name, leaves[0], axis};
    }
    case 3: {
      std::vector<std::string> order = leaves;
      std::shuffle(order.begin(), order.end(), rng);
      return ReorderStep{st.name, order};
    }
    case 4: return VectorizeStep{st.name, axis};
    case 5: return UnrollStep{st.name, axis};
    case 6: return ParallelStep{st.name, axis};
    case 7: {
      const StageInfo &tg = pick(s.stages(), rng);
      return ComputeAtStep{st.name, tg.name, pick(std::vector<LeafAxis>(tg.leaves), rng).name};
    }
    case 8: return ComputeInlineStep{st.name};
    case 10: {
      // Mostly a reduce leaf (legal when the stage's reduce axes are at most split once).
      std::vector<std::string> reduce;
      for (const auto &l : st.leaves)
        if (l.is_reduce) reduce.push_back(l.name);
      return RfactorStep{st.name, reduce.empty() || rng() % 5 == 0 ? axis : pick(reduce, rng)};
    }
    default: return ComputeRootStep{st.name};
  }
}

Schedule random_schedule(const std::vector<Tensor> &outs, std::mt19937_64 &rng, int *rejected) {
  Schedule s(outs);
  int n = std::uniform_int_distribution<int>(1, 14)(rng);
  for (int i = 0; i < n; i++) {
    Step step = random_step(s, rng);
    try {
      s.apply(step);
    } catch (const ScheduleError &e) {
      ++*rejected;
      EXPECT_NE(std::string(e.what()).find(step_kind(step)), std::string::npos) << e.what();
    }
  }
  return s;
}

void check_random_schedules(const RefCase &c, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  int rejected = 0, built = 0, factored = 0;
  std::vector<Tensor> outs = {c.output};
  for (int trial = 0; trial < count; trial++) {
    Schedule s = random_schedule(outs, rng, &rejected);
    std::string trace = trace_to_json(s);
    // Replay must reproduce the schedule exactly.
    Schedule r = replay(outs, trace_from_json(trace, outs));
    ASSERT_EQ(trace_to_json(r), trace);
    if (std::getenv("TETUNE_TRACE_TRIALS")) std::fprintf(stderr, "%s trial %d: %s\n", c.name.c_str(), trial, trace.c_str());
    std::vector<NDArray> got;
    try {
      got = Kernel::build(r).run(c.data);
    } catch (const Error &e) {
      FAIL() << c.name << " trial " << trial << ": accepted schedule failed to build/run: " << e.what() << "\n" << trace;
    }
    std::string where;
    ASSERT_TRUE(all_close(got[0], c.expected, 1e-4, 1e-5, &where)) << c.name << " trial " << trial << ": " << where << "\n"
                                                                     << trace;
    built++;
    for (const auto &st : s.trace()) factored += std::holds_alternative<RfactorStep>(st);
  }
  std::printf("%s: %d random schedules correct (%d rfactor steps), %d illegal steps rejected with ScheduleError\n",
              c.name.c_str(), built, factored, rejected);
  EXPECT_EQ(built, count);
  EXPECT_GT(rejected, 0);
  EXPECT_GT(factored, 0);
}

TEST(RandomSchedules, Matmul) { check_random_schedules(testing::gemm_case(23, 34, 19), 200, 1); }
TEST(RandomSchedules, Conv2dPadBiasRelu) { check_random_schedules(testing::conv_case(1, 3, 9, 11, 4), 200, 2); }
TEST(RandomSchedules, Softmax) { check_random_schedules(testing::softmax_case(5, 37), 200, 3); }

}  // namespace
}  // namespace tetune
