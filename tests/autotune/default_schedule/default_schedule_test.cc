// autotune::analytical_schedule and default_schedule on odd shapes: every
// operator class gets an analytical default that equals the reference
// interpreter, says where it came from, and (for the cost model) is ranked only
// when a trained model is given.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/default_schedule.h"
#include "codegen/kernel.h"
#include "te/interpreter.h"
#include "te/ops/conv.h"
#include "te/ops/matmul.h"
#include "te/ops/pool.h"
#include "te/ops/norm.h"
#include "te/ops/quant.h"
#include "te/ops/reduce.h"
#include "te/ops/rnn.h"
#include "te/ops/softmax.h"
#include "te/ops/transform.h"
#include "te/tensor.h"
#include "tests/schedule/parallel_root.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {
namespace {

void expect_equals_reference(const Task &task, const Schedule &s) {
  std::vector<Tensor> ins = task.inputs();
  std::vector<NDArray> data;
  for (size_t i = 0; i < ins.size(); i++) data.push_back(NDArray::random(ins[i].shape(), ins[i].dtype(), 11 + i, -2, 2));
  std::vector<NDArray> ref = interpret(task.outputs, ins, data);
  std::vector<NDArray> out = Kernel::build(s).run(data);
  ASSERT_EQ(out.size(), ref.size());
  for (size_t i = 0; i < out.size(); i++) {
    std::string where;
    EXPECT_TRUE(all_close(out[i], ref[i], 1e-4, 1e-4, &where)) << where;
  }
}

struct Case {
  std::string name;
  std::vector<Tensor> outputs;
  bool seeded;  // a multi-level tiled stage: the default is an analytical seed
};

std::vector<Case> cases() {
  std::vector<Case> out;
  {
    Tensor a = placeholder({67, 39}, float32(), "a"), b = placeholder({39, 45}, float32(), "b");
    out.push_back({"matmul 67x45x39", {ops::matmul(a, b)}, true});
  }
  {
    Tensor a = placeholder({3, 29, 33}, float32(), "a"), b = placeholder({3, 33, 19}, float32(), "b");
    out.push_back({"batch_matmul 3x29x19x33", {ops::batch_matmul(a, b)}, true});
  }
  {
    Tensor x = placeholder({1, 5, 17, 19}, float32(), "x"), w = placeholder({32, 5, 3, 3}, float32(), "w");
    Tensor bias = placeholder({32}, float32(), "bias");
    out.push_back({"conv 5->32 17x19 3x3 s2", {ops::conv2d(x, w, bias, {2, 2}, {1, 1, 1, 1})}, true});
  }
  {
    Tensor x = placeholder({1, 12, 11, 13}, float32(), "x"), w = placeholder({24, 12, 1, 1}, float32(), "w");
    out.push_back({"conv 1x1 12->24 11x13", {ops::conv2d(x, w)}, true});
  }
  {
    Tensor x = placeholder({1, 24, 15, 9}, float32(), "x"), w = placeholder({24, 1, 3, 3}, float32(), "w");
    out.push_back({"depthwise 24 15x9", {ops::conv2d(x, w, Tensor(), {1, 1}, {1, 1, 1, 1}, {1, 1}, 24)}, true});
  }
  {
    // 2.2 MB of padded input: the pad is computed inside the conv's tiles (pad_at_window)
    Tensor x = placeholder({1, 32, 129, 131}, float32(), "x"), w = placeholder({32, 1, 3, 3}, float32(), "w");
    out.push_back({"depthwise 32 129x131 s2", {ops::conv2d(x, w, Tensor(), {2, 2}, {1, 1, 1, 1}, {1, 1}, 32)}, true});
  }
  {
    // an image stem read as NCHW1c: 3 input channels, 2 output blocks of 16, 23 columns (prime) in guarded tiles
    Tensor x = placeholder({1, 3, 45, 45, 1}, float32(), "x"), w = placeholder({2, 3, 3, 3, 1, 16}, float32(), "w");
    out.push_back({"conv2d_nchwc stem 3->32 3x3 s2", {ops::conv2d_nchwc(x, w, {2, 2}, {1, 1, 1, 1})}, true});
    Tensor w7 = placeholder({4, 3, 7, 7, 1, 16}, float32(), "w7");
    out.push_back({"conv2d_nchwc stem 3->64 7x7 s2", {ops::conv2d_nchwc(x, w7, {2, 2}, {3, 3, 3, 3})}, true});
  }
  {
    // one row, 200 columns on 2 threads: the GEMV seed's tasks of 112 and a guarded 88
    Tensor a = placeholder({1, 100}, float32(), "a"), b = placeholder({100, 200}, float32(), "b");
    out.push_back({"gemv 1x200x100", {ops::matmul(a, b)}, true});
  }
  {
    // one row of a transposed weight W[n, k]: its columns are not contiguous, no GEMV seed
    Tensor x = placeholder({1, 100}, float32(), "x"), w = placeholder({72, 100}, float32(), "w");
    out.push_back({"dense 1x72x100", {ops::dense(x, w)}, true});
  }
  {
    // one row: the GEMV seed, its accumulator copy first
    Tensor xw = placeholder({1, 256}, float32(), "xw"), h = placeholder({1, 64}, float32(), "h");
    Tensor c = placeholder({1, 64}, float32(), "c"), r = placeholder({64, 256}, float32(), "r");
    std::vector<ops::RnnActivation> acts = {ops::rnn_activation("Sigmoid"), ops::rnn_activation("Tanh"),
                                            ops::rnn_activation("Tanh")};
    out.push_back({"lstm cell H=64", ops::lstm_cell(xw, h, c, r, Tensor(), acts, 0, "cell"), true});
  }
  // global average pools: lanes of 16, 8, 4 and a whole row of 7 (vectorized partial sums), and a serial sum
  for (int64_t w : {32, 24, 12, 7, 9}) {
    Tensor x = placeholder({2, 5, 3, w}, float32(), "x");
    out.push_back({"global_avg_pool 2x5x3x" + std::to_string(w), {ops::global_avg_pool2d(x)}, false});
  }
  {
    Tensor x = placeholder({7, 37}, float32(), "x");
    out.push_back({"softmax 7x37", {ops::softmax(x)}, false});
  }
  // Rows of at least 256 reduced in vectors along the row (rfactor's row form): 300 and 777 leave a guarded tail of 64 lanes.
  {
    Tensor x = placeholder({21, 300}, float32(), "x");
    out.push_back({"softmax 21x300", {ops::softmax(x)}, true});
    out.push_back({"log_softmax 21x300", {ops::log_softmax(x)}, true});
  }
  {
    Tensor x = placeholder({17, 777}, float32(), "x"), g = placeholder({777}, float32(), "g"), b = placeholder({777}, float32(), "b");
    out.push_back({"layer_norm 17x777", {ops::layer_norm(x, g, b)}, true});
    out.push_back({"reduce_max 17x777", {ops::reduce_max(x, {1})}, true});
  }
  {
    Tensor x = placeholder({3, 5, 11}, float32(), "x");
    Tensor y = compute({3, 5, 11}, [&](const std::vector<Var> &i) { return exp(x(i[0], i[1], i[2])) * Expr(0.5f); }, "y");
    out.push_back({"elementwise 3x5x11", {y}, true});  // no reduction: the simple stages' analytical seed
  }
  return out;
}

TEST(DefaultSchedule, AnalyticalEqualsReferenceOnOddShapes) {
  for (const Case &c : cases()) {
    SCOPED_TRACE(c.name);
    Task task = make_task(c.name, c.outputs, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    EXPECT_EQ(choice.source, ScheduleSource::Analytical);
    EXPECT_EQ(choice.detail.rfind("analytical seed", 0) == 0, c.seeded) << choice.detail;
    EXPECT_FALSE(choice.detail.empty());
    expect_equals_reference(task, choice.schedule);
  }
}

// The stage of `s` whose name ends with `suffix`; fails the test when there is none.
const StageInfo *stage_ending(const Schedule &s, const std::string &suffix) {
  for (const auto &st : s.stages())
    if (st.name.size() >= suffix.size() && st.name.compare(st.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return &st;
  ADD_FAILURE() << "no stage ending in " << suffix;
  return nullptr;
}

// A depthwise conv's pad larger than a core's L2 is computed inside the conv's
// tiles, a small one at root (an NCHW1c input's too: below); a global pool's lanes of partial sums are a vector.
TEST(DefaultSchedule, PadPlacementAndPoolLanes) {
  for (auto [hw, root] : {std::pair<int64_t, bool>{129, false}, {31, true}}) {
    Tensor x = placeholder({1, 32, hw, hw}, float32(), "x"), w = placeholder({32, 1, 3, 3}, float32(), "w");
    Task task = make_task("dw", {ops::conv2d(x, w, Tensor(), {2, 2}, {1, 1, 1, 1}, {1, 1}, 32)}, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    if (const StageInfo *pad = stage_ending(choice.schedule, "pad"))
      EXPECT_EQ(pad->attach.kind == Attach::Root, root) << hw << "x" << hw << ": " << choice.detail;
  }
  // An NCHW1c input's pad stays at root under a 3x3 window as under a 7x7 one (no bounds test at each tap).
  for (int64_t k : {3, 7}) {
    Tensor x = placeholder({1, 3, 47, 47, 1}, float32(), "x"), w = placeholder({2, 3, k, k, 1, 16}, float32(), "w");
    Task task = make_task("stem", {ops::conv2d_nchwc(x, w, {2, 2}, {k / 2, k / 2, k / 2, k / 2})}, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    if (const StageInfo *pad = stage_ending(choice.schedule, "pad"))
      EXPECT_EQ(pad->attach.kind, Attach::Root) << k << "x" << k << ": " << choice.detail;
  }
  Tensor x = placeholder({1, 8, 5, 24}, float32(), "x");
  Task task = make_task("gap", {ops::global_avg_pool2d(x)}, Target{}, 2);
  ScheduleChoice choice = analytical_schedule(task);
  if (const StageInfo *lanes = stage_ending(choice.schedule, ".lanes")) {
    ASSERT_FALSE(lanes->leaves.empty());
    EXPECT_EQ(lanes->leaves.back().annotation, "vectorize");
    EXPECT_EQ(lanes->leaves.back().extent, 8);
  }
}

// A blocked (NCHW16c) depthwise conv's pad leaves the channel lanes alone:
// it is inlined into a 3x3 window, a strided one, or a small output, not into
// a 5x5 window over 28x28 at stride 1; the conv equals the reference either
// way. An NCHW one's pad, which pads the vector axis, is not inlined.
TEST(DefaultSchedule, BlockedDepthwisePadInlinedWhereCheaper) {
  struct Case {
    int64_t hw, k, stride;
    bool inlined;
  };
  for (Case c : {Case{14, 3, 1, true}, Case{15, 5, 2, true}, Case{130, 3, 2, true}, Case{14, 5, 1, true},
                 Case{28, 5, 1, false}}) {
    Tensor x = placeholder({1, 4, c.hw, c.hw, 16}, float32(), "x"), w = placeholder({4, c.k, c.k, 16}, float32(), "w");
    const int64_t p = c.k / 2;
    Task task = make_task("dw", {ops::depthwise_conv2d_nchwc(x, w, {c.stride, c.stride}, {p, p, p, p})}, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    SCOPED_TRACE(std::to_string(c.hw) + "x" + std::to_string(c.hw) + " " + std::to_string(c.k) + "x" +
                 std::to_string(c.k) + ": " + choice.detail);
    const StageInfo *pad = stage_ending(choice.schedule, "pad");
    ASSERT_NE(pad, nullptr);
    EXPECT_EQ(pad->attach.kind == Attach::Inline, c.inlined);
    expect_equals_reference(task, choice.schedule);
  }
  Tensor x = placeholder({1, 32, 31, 31}, float32(), "x"), w = placeholder({32, 1, 3, 3}, float32(), "w");
  Task task = make_task("dw", {ops::conv2d(x, w, Tensor(), {2, 2}, {1, 1, 1, 1}, {1, 1}, 32)}, Target{}, 2);
  ScheduleChoice choice = analytical_schedule(task);
  const StageInfo *pad = stage_ending(choice.schedule, "pad");
  ASSERT_NE(pad, nullptr);
  EXPECT_NE(pad->attach.kind, Attach::Inline) << choice.detail;
}

// A task without a seed (a max pool over NCHW16c) gets the elementwise
// default in the target's fp32 lanes: one 16-lane vector per channel block on
// AVX-512, 8 lanes on AVX2; equal to the reference either way.
TEST(DefaultSchedule, ElementwiseDefaultVectorsAreTheTargetsLanes) {
  const Target avx512{"x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake"};
  const Target avx2{"x86-64-linux-avx-avx2-f16c-fma-sse41"};
  for (auto [target, lanes] : {std::pair<Target, int64_t>{avx512, 16}, {avx2, 8}}) {
    Tensor x = placeholder({1, 2, 13, 13, 16}, float32(), "x");
    Task task = make_task("pool", {ops::max_pool2d(x, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false, "pool")}, target, 2);
    ScheduleChoice choice = analytical_schedule(task);
    SCOPED_TRACE(choice.detail);
    EXPECT_EQ(choice.detail.rfind("elementwise default", 0), 0u);
    const StageInfo *pool = stage_ending(choice.schedule, "pool");
    if (!pool) continue;
    ASSERT_FALSE(pool->leaves.empty());
    EXPECT_EQ(pool->leaves.back().annotation, "vectorize");
    EXPECT_EQ(pool->leaves.back().extent, lanes);
    expect_equals_reference(task, choice.schedule);  // built for the host
  }
}

// A stage whose lanes each read their own channel (ShuffleNetV2's shuffle
// of two 29-channel branches, blocked by 16: a quotient and a remainder of
// the lane index pick each channel) runs its lanes one by one; a layout
// transform out of the blocks (its columns contiguous) keeps full vectors.
// Both equal the reference.
TEST(DefaultSchedule, LanesThatGatherRunScalar) {
  Tensor a = placeholder({1, 2, 7, 9, 16}, float32(), "a"), b = placeholder({1, 2, 7, 9, 16}, float32(), "b");
  Task gather = make_task("shuffle", {ops::blocked_channel_gather({a, b}, {29, 29}, 2, 0, 58, 16, "shuffle")}, Target{}, 2);
  Task plain = make_task("plain", {ops::to_plain(a, 29, "plain")}, Target{}, 2);
  for (auto [task, vectorized] : {std::pair<const Task *, bool>{&gather, false}, {&plain, true}}) {
    ScheduleChoice choice = analytical_schedule(*task);
    SCOPED_TRACE(task->name + ": " + choice.detail);
    const StageInfo *st = stage_ending(choice.schedule, task->name);
    ASSERT_NE(st, nullptr);
    bool any_vector = false;
    for (const auto &leaf : st->leaves) any_vector |= leaf.annotation == "vectorize";
    EXPECT_EQ(any_vector, vectorized);
    expect_equals_reference(*task, choice.schedule);
  }
}

// A row reduction of many rows over a long contiguous row reads it in
// vectors: the partial results stage (".rf") holds 64 lanes, vectorized.
// NaN anywhere in a row, in the full vectors or the guarded tail, makes that
// row's max and softmax NaN, as ONNX and the reference interpreter say; the
// other rows keep their values.
TEST(DefaultSchedule, LongRowsReducedAlongTheRowKeepNaN) {
  Tensor x = placeholder({20, 300}, float32(), "x");
  for (const Tensor &y : {ops::reduce_max(x, {1}), ops::softmax(x)}) {
    Task task = make_task(y.name(), {y}, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    SCOPED_TRACE(y.name() + ": " + choice.detail);
    const StageInfo *rf = stage_ending(choice.schedule, ".rf");
    if (!rf) return;
    ASSERT_FALSE(rf->leaves.empty());
    EXPECT_EQ(rf->leaves.back().annotation, "vectorize");
    EXPECT_EQ(rf->leaves.back().extent, 64);
    NDArray data = NDArray::random({20, 300}, float32(), 5, -2, 2);
    data.set(3 * 300 + 290, std::nan(""));  // in the tail (256..299)
    data.set(7 * 300 + 10, std::nan(""));   // in the first vector
    std::vector<NDArray> ref = interpret(task.outputs, {x}, {data});
    std::vector<NDArray> out = Kernel::build(choice.schedule).run({data});
    ASSERT_EQ(out.size(), 1u);
    std::string where;
    EXPECT_TRUE(all_close(out[0], ref[0], 1e-5, 1e-6, &where)) << where;
    const int64_t cols = out[0].shape().back();
    for (int64_t row : {3, 7}) EXPECT_TRUE(std::isnan(out[0].get(row * cols + cols - 1))) << "row " << row;
    EXPECT_FALSE(std::isnan(out[0].get(4 * cols))) << "row 4";
  }
}

// A softmax's and a layer norm's row-form reductions, and softmax's exp, are
// computed at the output's row loop inside its one parallel loop, exp once
// per element in vectors; the result equals the reference, on rows whose
// length no lane count divides (197, ViT's) as well.
TEST(DefaultSchedule, RowReductionsAtTheOutputsRow) {
  Tensor x = placeholder({3, 37, 197}, float32(), "x"), g = placeholder({197}, float32(), "g"), b = placeholder({197}, float32(), "b");
  for (const Tensor &y : {ops::softmax(x), ops::layer_norm(x, g, b)}) {
    Task task = make_task(y.name(), {y}, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    SCOPED_TRACE(y.name() + ": " + choice.detail);
    int parallel_stages = 0, reductions = 0;
    for (const auto &st : choice.schedule.stages()) {
      bool parallel = false;
      for (const auto &l : st.leaves) parallel |= l.annotation == "parallel";
      parallel_stages += parallel;
      if (st.kind != StageInfo::Compute || !st.is_reduction() || st.name.find(".rf") != std::string::npos) continue;
      reductions++;
      EXPECT_EQ(st.attach.kind, Attach::At) << st.name;
    }
    EXPECT_EQ(reductions, 2);
    EXPECT_EQ(parallel_stages, 1) << "one parallel loop: the output's";
    if (y.name().find("softmax") != std::string::npos) {
      const StageInfo *e = stage_ending(choice.schedule, ".exp");
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->attach.kind, Attach::At);
      ASSERT_FALSE(e->leaves.empty());
      EXPECT_EQ(e->leaves.back().annotation, "vectorize");
    }
    expect_equals_reference(task, choice.schedule);
  }
}

// Integer DAGs keep the elementwise default (Halide 14 mis-lowers their
// inlined casts inside a vectorized accumulator) and still equal the reference.
bool any_parallel_loop(const Schedule &s) {
  for (const auto &st : s.stages())
    for (const auto &l : st.leaves)
      if (l.annotation == "parallel") return true;
  return false;
}

// A DAG of little work (an LSTM step's Gather of one 1024-float row) runs on
// one thread: a parallel loop's hand-off costs more than it computes. So do
// the simple stages beside a tiled one when they do little work (an LSTM
// step's states beside its gates). A one-row product over a long reduction
// stays parallel.
TEST(DefaultSchedule, LittleWorkRunsOnOneThread) {
  struct Shape {
    int64_t rows;
    bool parallel;
  };
  for (Shape sh : {Shape{1, false}, Shape{4, false}, Shape{16, true}}) {
    Tensor x = placeholder({sh.rows, 1024}, float32(), "x");
    Tensor y = compute({sh.rows, 1024}, [&](const std::vector<Var> &i) { return exp(x(i[0], i[1])) * Expr(0.5f); }, "y");
    Task task = make_task("scale", {y}, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    SCOPED_TRACE(std::to_string(sh.rows) + " rows: " + choice.detail);
    EXPECT_EQ(any_parallel_loop(choice.schedule), sh.parallel);
    expect_equals_reference(task, choice.schedule);
  }
  // An LSTM step of 256 hidden units: its gates (a 1 x 256 by 256 x 1024 product) run in parallel,
  // its cell and hidden states (256 points each) on one thread.
  const int64_t H = 256;
  Tensor xw = placeholder({1, 4 * H}, float32(), "xw"), h = placeholder({1, H}, float32(), "h");
  Tensor c = placeholder({1, H}, float32(), "c"), rt = placeholder({H, 4 * H}, float32(), "rt");
  const std::vector<ops::RnnActivation> acts = {ops::rnn_activation("Sigmoid"), ops::rnn_activation("Tanh"),
                                                ops::rnn_activation("Tanh")};
  Task step = make_task("lstm_step", ops::lstm_cell(xw, h, c, rt, Tensor(), acts, 0, "lstm"), Target{}, 2);
  ScheduleChoice lstm = analytical_schedule(step);
  for (const auto &st : lstm.schedule.stages()) {
    if (st.kind != StageInfo::Compute) continue;
    bool parallel = false;
    for (const auto &l : st.leaves) parallel |= l.annotation == "parallel";
    if (st.name == "lstm" || st.name == "lstm.c") {
      EXPECT_FALSE(parallel) << st.name << ": " << lstm.detail;
    }
  }
  EXPECT_TRUE(any_parallel_loop(lstm.schedule)) << "the gates' product: " << lstm.detail;
  expect_equals_reference(step, lstm.schedule);
  Tensor a = placeholder({1, 2048}, float32(), "a"), b = placeholder({2048, 1000}, float32(), "b");
  Tensor bias = placeholder({1000}, float32(), "bias");
  Tensor mm = ops::matmul(a, b);
  Tensor out = compute({1, 1000}, [&](const std::vector<Var> &i) { return mm(i[0], i[1]) + bias(i[1]); }, "out");
  Task gemv = make_task("gemv_bias", {out}, Target{}, 2);
  ScheduleChoice choice = analytical_schedule(gemv);
  SCOPED_TRACE(choice.detail);
  EXPECT_TRUE(any_parallel_loop(choice.schedule));
  expect_equals_reference(gemv, choice.schedule);
}

// A blocked conv whose input outweighs its weight splits its image among the
// threads by rows (each reads the rows it wrote as the producer); a conv of a
// large weight, or of too few rows, by channel blocks.
TEST(DefaultSchedule, BlockedConvOfLargeImagesSplitsByRows) {
  struct Case {
    int64_t in_blocks, hw, out_blocks;
    const char *first;
  };
  for (Case c : {Case{16, 56, 4, "h"}, Case{4, 64, 1, "h"}, Case{64, 14, 32, "k"}, Case{16, 7, 4, "k"}}) {
    Tensor x = placeholder({1, c.in_blocks, c.hw, c.hw, 16}, float32(), "x");
    Tensor w = placeholder({c.out_blocks, c.in_blocks, 1, 1, 16, 16}, float32(), "w");
    Task task = make_task("conv1x1", {ops::conv2d_nchwc(x, w)}, Target{}, 2);
    ScheduleChoice choice = analytical_schedule(task);
    SCOPED_TRACE(std::to_string(c.in_blocks * 16) + " -> " + std::to_string(c.out_blocks * 16) + " channels at " +
                 std::to_string(c.hw) + "x" + std::to_string(c.hw) + ": " + choice.detail);
    EXPECT_EQ(parallel_root(choice.schedule), c.first);
    if (c.in_blocks * c.out_blocks * c.hw * c.hw <= 1 << 14) expect_equals_reference(task, choice.schedule);
  }
}

TEST(DefaultSchedule, IntegerMatmulKeepsTheElementwiseDefault) {
  Tensor a = placeholder({9, 21}, uint8(), "a"), b = placeholder({21, 34}, uint8(), "b");
  Tensor za = placeholder({}, uint8(), "za"), zb = placeholder({}, uint8(), "zb");
  Task task = make_task("matmul_integer", {ops::matmul_integer(a, b, za, zb)}, Target{}, 2);
  ScheduleChoice choice = analytical_schedule(task);
  EXPECT_NE(choice.detail.find("integer"), std::string::npos) << choice.detail;
  expect_equals_reference(task, choice.schedule);
}

TEST(DefaultSchedule, CostModelOnlyWhenTrained) {
  Tensor a = placeholder({67, 39}, float32(), "a"), b = placeholder({39, 45}, float32(), "b");
  Task task = make_task("matmul", {ops::matmul(a, b)}, Target{}, 2);
  EXPECT_EQ(default_schedule(task).source, ScheduleSource::Analytical);
  cost_model::XGBCostModel untrained;
  DefaultScheduleOptions o;
  o.cost_model = &untrained;
  ScheduleChoice c = default_schedule(task, o);
  EXPECT_EQ(c.source, ScheduleSource::Analytical);
  EXPECT_NE(c.detail.find("not trained"), std::string::npos) << c.detail;
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
