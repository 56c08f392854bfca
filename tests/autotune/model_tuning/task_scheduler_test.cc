// The gradient-based task scheduler on synthetic tasks with a fake "measure"
// function (latency curves), no compilation or measuring.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "autotune/task_scheduler.h"

namespace tetune {
namespace autotune {
namespace {

// Fake tuning: the best latency of task i after t trials is base_i * (0.3 + 0.7 / (1 + t / 16)).
struct Fake {
  std::vector<double> base;
  std::vector<int> calls;
  double latency(int i, int t) const { return base[i] * (0.3 + 0.7 / (1.0 + t / 16.0)); }
  SchedStepFn step() {
    return [this](int i, int target, bool, int *now, double *best) {
      calls[i]++;
      *now = target;
      *best = latency(i, target);
      return true;
    };
  }
};

std::vector<SchedTaskInfo> infos(const std::vector<double> &weights) {
  std::vector<SchedTaskInfo> v;
  for (size_t i = 0; i < weights.size(); i++) {
    SchedTaskInfo t;
    t.name = "t" + std::to_string(i);
    t.weight = weights[i];
    t.flops = 1e6;
    v.push_back(t);
  }
  return v;
}

TEST(TaskScheduler, DominantTaskGetsMoreTrials) {
  Fake f{{10.0, 1.0, 0.5, 1.0}, std::vector<int>(4, 0)};
  SchedulerOptions o;
  o.batch = 8;
  o.total_trials = 320;
  o.epsilon = 0;
  TaskScheduler s(infos({1, 1, 1, 1}), o);
  int steps = run_task_scheduler(s, f.step());
  EXPECT_EQ(s.trials_used(), 320);
  EXPECT_EQ(steps, 40);
  for (int i = 0; i < 4; i++) EXPECT_GE(s.state(i).trials, 8) << "warm-up gives every task one batch";
  for (int i = 1; i < 4; i++) EXPECT_GT(s.state(0).trials, 2 * s.state(i).trials) << "task " << i;
  double f_end = s.objective();
  EXPECT_LT(f_end, 12.5 * 0.8);
}

TEST(TaskScheduler, WeightCounts) {
  // Equal latency curves; task 1 occurs 6 times in the model.
  Fake f{{2.0, 2.0, 2.0}, std::vector<int>(3, 0)};
  SchedulerOptions o;
  o.batch = 4;
  o.total_trials = 120;
  o.epsilon = 0;
  TaskScheduler s(infos({1, 6, 1}), o);
  run_task_scheduler(s, f.step());
  EXPECT_GT(s.state(1).trials, s.state(0).trials);
  EXPECT_GT(s.state(1).trials, s.state(2).trials);
}

TEST(TaskScheduler, WarmupIsRoundRobinAndTasksWithoutResultFirst) {
  Fake f{{1.0, 1.0, 1.0}, std::vector<int>(3, 0)};
  SchedulerOptions o;
  o.batch = 2;
  o.total_trials = 100;
  o.epsilon = 0;
  TaskScheduler s(infos({1, 1, 1}), o);
  for (int i = 0; i < 3; i++) {
    auto p = s.next();
    EXPECT_EQ(p.task, i);
    EXPECT_TRUE(p.warmup);
    EXPECT_EQ(p.trials_target, 2);
    // Task 1's warm-up only produces failures.
    s.report(p.task, p.trials_target, i == 1 ? std::numeric_limits<double>::infinity() : 1.0);
  }
  EXPECT_EQ(s.tasks_without_result(), 1);
  EXPECT_TRUE(std::isinf(-s.gradient(1)));
  EXPECT_EQ(s.next().task, 1);
}

TEST(TaskScheduler, ResumeCountsStoredRecords) {
  SchedulerOptions o;
  o.batch = 4;
  o.total_trials = 24;
  TaskScheduler s(infos({1, 1, 1}), o);
  s.set_initial(0, 8, 1.0);
  s.set_initial(1, 8, 2.0);
  s.set_initial(2, 8, 3.0);
  EXPECT_EQ(s.remaining(), 0);
  EXPECT_EQ(s.next().task, -1) << "budget already spent by stored records: nothing to measure";
  // A partial run: the warm-up of a task with fewer stored records than a batch tops it up.
  TaskScheduler s2(infos({1, 1}), o);
  s2.set_initial(0, 4, 1.0);
  s2.set_initial(1, 1, 5.0);
  auto p = s2.next();
  EXPECT_EQ(p.task, 1);
  EXPECT_TRUE(p.warmup);
  EXPECT_EQ(p.trials_target, 4);
}

TEST(TaskScheduler, CapsAndExhaustedTasks) {
  auto in = infos({1, 1, 1});
  in[2].max_trials = 2;  // small task
  in[1].max_trials = 0;  // skipped
  SchedulerOptions o;
  o.batch = 4;
  o.total_trials = 40;
  o.epsilon = 0;
  TaskScheduler s(in, o);
  int calls0 = 0;
  run_task_scheduler(s, [&](int i, int target, bool, int *now, double *best) {
    if (i == 0) {
      // Space exhausted after 12 records: the step adds nothing.
      calls0++;
      *now = std::min(target, 12);
    } else {
      *now = target;
    }
    *best = 1.0;
    return true;
  });
  EXPECT_EQ(s.state(0).trials, 12);
  EXPECT_TRUE(s.state(0).dead);
  EXPECT_EQ(s.state(1).trials, 0);
  EXPECT_EQ(s.state(2).trials, 2);
  EXPECT_EQ(s.next().task, -1);
}

// A capped task is tuned as any other once its w * g reaches heavy_share of
// the objective (a layout transform that takes half the latency); a light
// capped task keeps its cap, and with heavy_share 0 every cap holds.
TEST(TaskScheduler, HeavyCappedTaskIsUncapped) {
  for (double share : {0.0, 0.01}) {
    SCOPED_TRACE(share);
    auto in = infos({1, 1, 1});
    in[1].max_trials = 2;  // heavy: half of the objective
    in[2].max_trials = 2;  // light: 0.05%
    in[1].flops = in[2].flops = 0;
    SchedulerOptions o;
    o.batch = 4;
    o.total_trials = 60;
    o.epsilon = 0;
    o.heavy_share = share;
    Fake f{{1.0, 1.0, 0.001}, std::vector<int>(3, 0)};
    TaskScheduler s(in, o);
    run_task_scheduler(s, f.step());
    if (share > 0) EXPECT_GT(s.state(1).trials, 2);
    else EXPECT_EQ(s.state(1).trials, 2);
    EXPECT_EQ(s.state(2).trials, 2);
    EXPECT_FALSE(s.state(1).dead);
    EXPECT_EQ(s.trials_used(), 60);
  }
}

TEST(TaskScheduler, StepCanStopTheRun) {
  Fake f{{1.0, 1.0}, std::vector<int>(2, 0)};
  SchedulerOptions o;
  o.batch = 4;
  o.total_trials = 100;
  TaskScheduler s(infos({1, 1}), o);
  int n = 0;
  int steps = run_task_scheduler(s, [&](int i, int target, bool w, int *now, double *best) {
    f.step()(i, target, w, now, best);
    return ++n < 3;
  });
  EXPECT_EQ(steps, 3);
  EXPECT_EQ(s.trials_used(), 12);
}

TEST(TaskScheduler, SimilarTaskThroughputBoundsTheForwardGuess) {
  // Tasks 0 and 1 are similar; task 1 reaches a much higher throughput, so
  // task 0 (same flops, 10x slower) is expected to improve a lot.
  auto in = infos({1, 1, 1});
  in[0].similarity_key = in[1].similarity_key = "Conv_Relu";
  SchedulerOptions o;
  o.batch = 4;
  o.total_trials = 1000;
  o.epsilon = 0;
  TaskScheduler s(in, o);
  s.set_initial(0, 64, 10.0);
  s.set_initial(1, 64, 1.0);
  s.set_initial(2, 64, 10.0);
  // Without the similarity term 0 and 2 would be equal; with it task 0 may drop to beta * C / V = 2 ms.
  EXPECT_LT(s.gradient(0), s.gradient(2));
  EXPECT_EQ(s.next().task, 0);
}

// Task 2 is another form of the kernels of tasks 0 and 1 (a direct conv beside
// its Winograd kernels): the model runs the faster form, so f counts task 2
// only by what it saves over their sum.
TEST(TaskScheduler, ARivalCountsOnlyWhereItIsTheFasterForm) {
  auto in = infos({1, 1, 2});
  in[2].rivals = {0, 1};
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(objective(in, {1.0, 2.0, 4.0}), 3.0) << "slower than its rivals: not counted";
  EXPECT_DOUBLE_EQ(objective(in, {1.0, 2.0, 2.5}), 3.0 - 2 * 0.5) << "faster: its 2 occurrences save 0.5 ms each";
  EXPECT_DOUBLE_EQ(objective(in, {1.0, inf, 2.5}), 1.0) << "a rival without a result: nothing to compare";
  EXPECT_DOUBLE_EQ(objective(in, {1.0, 2.0, inf}), 3.0);

  SchedulerOptions o;
  o.batch = 4;
  TaskScheduler s(in, o);
  s.set_initial(0, 64, 1.0);
  s.set_initial(1, 64, 2.0);
  s.set_initial(2, 1, 5.0);
  EXPECT_EQ(s.tasks_without_result(), 0);
  EXPECT_LT(s.gradient(2), 0) << "one record: the 1/t guess takes it below its rivals' 3 ms";
  s.set_initial(2, 64, 5.0);
  EXPECT_EQ(s.gradient(2), 0) << "16 rounds in: the guess (5 - 5/16 ms) stays over 3 ms, so f would not move";
  s.set_initial(2, 64, 3.1);
  EXPECT_LT(s.gradient(2), 0) << "3.1 - 3.1/16 ms is under 3 ms";
  EXPECT_DOUBLE_EQ(s.objective(), 3.0);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
