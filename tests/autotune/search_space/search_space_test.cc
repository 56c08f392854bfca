// Legality of the automatic search space: every sampled / mutated / crossed
// candidate schedules, replays through JSON, compiles with Halide and computes
// the same values as the unscheduled compute.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

#include "autotune/features/features.h"
#include "autotune/search_space/search_space.h"
#include "workload/task.h"
#include "codegen/kernel.h"
#include "tests/schedule/parallel_root.h"
#include "codegen/prepack.h"
#include "schedule/trace.h"
#include "te/ops/elementwise.h"
#include "te/ops/registry.h"
#include "te/ops/winograd.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace {

// Register-block shapes depend on the target (SearchSpace::max_register_block):
// tests of AVX-512's shapes name an AVX-512 target, whatever CPU runs them
// (they build schedules, never kernels, on it).
const Target kAvx512{"x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake"};
const Target kAvx2{"x86-64-linux-avx-avx2-f16c-fma-sse41"};
Task avx512_task(const std::string &name, const std::vector<Tensor> &outputs) { return make_task(name, outputs, kAvx512); }

// The extent of st's parallel loop; 0 when it has none.
int64_t parallel_extent(const StageInfo &st) {
  int64_t extent = 0;
  for (const auto &leaf : st.leaves)
    if (leaf.annotation == "parallel") extent = leaf.extent;
  return extent;
}

std::vector<Tensor> gemm(int M, int N, int K) {
  Tensor A = placeholder({M, K}, float32(), "A");
  Tensor B = placeholder({K, N}, float32(), "B");
  IterVar k = reduce_axis(K, "k");
  Tensor C = compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C",
                     "matmul", {"i", "j"});
  return {C};
}

// pad (select) -> conv2d (NCHW, OIHW) -> bias_add (inlined) -> relu (output).
std::vector<Tensor> conv_bias_relu(int N, int C, int H, int W, int K, int R, int stride, int pad) {
  Tensor data = placeholder({N, C, H, W}, float32(), "data");
  Tensor weight = placeholder({K, C, R, R}, float32(), "weight");
  Tensor bias = placeholder({K}, float32(), "bias");
  int HP = H + 2 * pad, WP = W + 2 * pad;
  Tensor padded = compute(
      {N, C, HP, WP},
      [&](const std::vector<Var> &i) {
        Expr h = i[2], w = i[3];
        Expr inside = h >= pad && h < H + pad && w >= pad && w < W + pad;
        return select(inside, data(i[0], i[1], h - pad, w - pad), Expr(0.0f));
      },
      "pad", "injective", {"n", "c", "h", "w"});
  int OH = (HP - R) / stride + 1, OW = (WP - R) / stride + 1;
  IterVar rc = reduce_axis(C, "rc"), ry = reduce_axis(R, "ry"), rx = reduce_axis(R, "rx");
  Tensor conv = compute(
      {N, K, OH, OW},
      [&](const std::vector<Var> &i) {
        return sum(padded(i[0], rc.var, Expr(i[2]) * stride + ry.var, Expr(i[3]) * stride + rx.var) *
                       weight(i[1], rc.var, ry.var, rx.var),
                   {rc, ry, rx});
      },
      "conv", "conv2d", {"n", "k", "oh", "ow"});
  Tensor biased = compute(
      {N, K, OH, OW}, [&](const std::vector<Var> &i) { return conv(i[0], i[1], i[2], i[3]) + bias(i[1]); }, "bias_add",
      "elemwise", {"n", "k", "oh", "ow"});
  Tensor relu = compute(
      {N, K, OH, OW}, [&](const std::vector<Var> &i) { return max(biased(i[0], i[1], i[2], i[3]), Expr(0.0f)); }, "relu",
      "elemwise", {"n", "k", "oh", "ow"});
  return {relu};
}

// Softmax over the last axis, as te/ops builds it: max, exp, sum, divide.
std::vector<Tensor> softmax(int M, int N) {
  Tensor x = placeholder({M, N}, float32(), "x");
  Tensor mx = compute({M}, [&](const std::vector<Var> &i) {
    IterVar k = reduce_axis(N, "k");
    return max(x(i[0], k.var), {k});
  }, "sm.max", "reduce", {"i"});
  Tensor e = compute({M, N}, [&](const std::vector<Var> &i) { return exp(x(i[0], i[1]) - mx(i[0])); }, "sm.exp",
                     "broadcast", {"i", "j"});
  Tensor s = compute({M}, [&](const std::vector<Var> &i) {
    IterVar k = reduce_axis(N, "k");
    return sum(e(i[0], k.var), {k});
  }, "sm.sum", "reduce", {"i"});
  Tensor out = compute({M, N}, [&](const std::vector<Var> &i) { return e(i[0], i[1]) / s(i[0]); }, "sm", "softmax",
                       {"i", "j"});
  return {out};
}

// x*2+1 (cheap, inlined) -> exp (location choice) -> * y[j] (cheap) -> + a (output).
std::vector<Tensor> elementwise_chain(int M, int N) {
  Tensor x = placeholder({M, N}, float32(), "x");
  Tensor y = placeholder({N}, float32(), "y");
  auto ax = std::vector<std::string>{"i", "j"};
  Tensor a = compute({M, N}, [&](const std::vector<Var> &i) { return x(i[0], i[1]) * 0.5f + 1.0f; }, "a", "elemwise", ax);
  Tensor b = compute({M, N}, [&](const std::vector<Var> &i) { return exp(a(i[0], i[1])); }, "b", "elemwise", ax);
  Tensor c = compute({M, N}, [&](const std::vector<Var> &i) { return b(i[0], i[1]) * y(i[1]); }, "c", "elemwise", ax);
  Tensor d = compute({M, N}, [&](const std::vector<Var> &i) { return c(i[0], i[1]) + a(i[0], i[1]); }, "d", "elemwise", ax);
  return {d};
}

// Sum over the last axis (small spatial extent, large reduce extent).
std::vector<Tensor> row_sum(int M, int N) {
  Tensor x = placeholder({M, N}, float32(), "x");
  IterVar k = reduce_axis(N, "k");
  Tensor s = compute({M}, [&](const std::vector<Var> &i) { return sum(x(i[0], k.var), {k}); }, "rsum", "reduce", {"i"});
  return {s};
}

// Sum over two reduce axes into a tiny output, then an elementwise consumer.
std::vector<Tensor> sum2_scale(int M, int R, int N) {
  Tensor x = placeholder({M, R, N}, float32(), "x");
  IterVar r = reduce_axis(R, "r"), k = reduce_axis(N, "k");
  Tensor s = compute({M}, [&](const std::vector<Var> &i) { return sum(x(i[0], r.var, k.var), {r, k}); }, "s2", "reduce",
                     {"i"});
  Tensor o = compute({M}, [&](const std::vector<Var> &i) { return exp(s(i[0]) * 0.001f); }, "o", "elemwise", {"i"});
  return {o};
}

// The value of c's parameter whose name ends with `suffix` (".tile.k.3"), or -1.
int64_t param(const Candidate &c, const std::string &suffix) {
  for (const auto &[name, v] : c.params)
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) return v;
  return -1;
}

struct Checker {
  Task task;
  SearchSpace space;
  std::vector<NDArray> inputs, ref;
  // Per output: a reordered fp32 sum differs from the reference by rounding that grows with its partial
  // sums, which the largest output bounds (an output near 0 of a 2304-term conv differed by 2.4e-5 on an
  // AVX-512 Xeon); indexing errors are of the outputs' own size. So atol is 1e-5 x max(1, max |ref|).
  std::vector<double> atol;
  int built = 0;

  explicit Checker(const Task &t) : task(t), space(t) {
    auto ins = task.inputs();
    for (size_t i = 0; i < ins.size(); i++) inputs.push_back(NDArray::random(ins[i].shape(), ins[i].dtype(), 17 + i));
    ref = Kernel::build(Schedule(task.outputs)).run(inputs);
    for (const NDArray &r : ref) atol.push_back(1e-5 * std::max(1.0, max_abs(r)));
  }

  void check(const Candidate &c, const std::string &what) {
    SCOPED_TRACE(what + " " + c.key());
    std::vector<Step> steps;
    ASSERT_NO_THROW(steps = space.steps(c));
    EXPECT_EQ(space.steps(c), steps) << "steps are not deterministic";
    Schedule s = space.schedule(c);
    EXPECT_EQ(s.trace(), steps);
    Schedule r = replay(task.outputs, trace_from_json(trace_to_json(s), task.outputs));
    EXPECT_EQ(r.trace(), steps);
    // The search scores the schedule as built; the measurer replays its steps.
    EXPECT_EQ(features::schedule_features(s, task), features::schedule_features(r, task));
    std::string trace = trace_to_json(s);
    if (std::getenv("SS_VERBOSE")) std::cerr << what << " " << c.key() << "\n" << trace << std::endl;
    try {
      Kernel k = Kernel::build(r);
      built++;
      auto out = k.run(inputs);
      ASSERT_EQ(out.size(), ref.size());
      for (size_t i = 0; i < out.size(); i++) {
        std::string where;
        EXPECT_TRUE(all_close(out[i], ref[i], 1e-4, atol[i], &where)) << where << "\n" << trace;
      }
    } catch (const Error &e) {
      ADD_FAILURE() << e.what() << "\n" << trace;
    }
  }

  void run(int samples, int mutations, int crossovers, uint64_t seed) {
    // SS_SEED shifts the seeds (for stress runs); the default run is deterministic.
    if (const char *e = std::getenv("SS_SEED")) seed += std::strtoull(e, nullptr, 10);
    std::mt19937_64 rng(seed);
    std::vector<Candidate> pool;
    for (int i = 0; i < samples; i++) {
      pool.push_back(space.sample(rng));
      check(pool.back(), "sample");
      if (::testing::Test::HasFailure()) return;
    }
    for (int i = 0; i < mutations; i++) {
      Candidate c = pool[rng() % pool.size()];
      for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; k++) c = space.mutate(c, rng);
      check(c, "mutation");
      pool.push_back(c);
    }
    for (int i = 0; i < crossovers; i++) {
      // Prefer parents of the same sketch.
      const Candidate &a = pool[rng() % pool.size()];
      Candidate b = pool[rng() % pool.size()];
      for (int t = 0; t < 20 && b.sketch != a.sketch; t++) b = pool[rng() % pool.size()];
      check(space.crossover(a, b, rng), "crossover");
    }
  }
};

void print_sketches(const SearchSpace &sp, const std::string &name) {
  std::cout << name << ": " << sp.num_sketches() << " sketch(es)\n";
  for (int i = 0; i < sp.num_sketches(); i++) std::cout << "  [" << i << "] " << sp.sketch_description(i) << "\n";
}

constexpr int kSamples = 30, kMutations = 8, kCrossovers = 8;

TEST(SearchSpace, GemmLegal) {
  Checker ch(make_task("gemm_64x48x40", gemm(64, 48, 40)));
  print_sketches(ch.space, "gemm 64x48x40");
  EXPECT_GE(ch.space.num_sketches(), 2);
  ch.run(kSamples, kMutations, kCrossovers, 1);
}

// A register block whose reduction is not unrolled reaches, in one mutation,
// the same block with its reduction split by 2 or 4 and unrolled: the reduce
// tile and max_unroll change together (and the result is legal and correct).
TEST(SearchSpace, MutationUnrollsTheReductionOfARegisterBlock) {
  Checker ch(make_task("gemm_96x64x64", gemm(96, 64, 64)));
  auto unrolled_reduction = [&](const Candidate &c) {
    for (const Step &s : ch.space.steps(c))
      if (auto *u = std::get_if<UnrollStep>(&s); u && u->stage == "C.local" && u->axis.rfind("k", 0) == 0) return true;
    return false;
  };
  std::mt19937_64 rng(5);
  int rolled = 0, unrolled_by_mutation = 0;
  for (int i = 0; i < 400 && unrolled_by_mutation < 3; i++) {
    Candidate c = ch.space.sample(rng);
    if (!ch.space.steps(c).size() || unrolled_reduction(c)) continue;
    bool has_local = false;
    for (const Step &s : ch.space.steps(c)) has_local |= step_stage(s) == "C.local";
    if (!has_local) continue;
    rolled++;
    for (int m = 0; m < 40; m++) {
      Candidate n = ch.space.mutate(c, rng);
      // One step that changes the reduce tile and the unroll budget together (other mutations change one parameter).
      std::set<std::string> changed;
      for (const auto &[name, v] : n.params)
        if (!c.params.count(name) || c.params.at(name) != v) changed.insert(name);
      if (changed != std::set<std::string>{"C.tile.k.1", "C.max_unroll"} || !unrolled_reduction(n)) continue;
      ch.check(n, "reduction unrolled");
      unrolled_by_mutation++;
      break;
    }
  }
  EXPECT_GT(rolled, 0);
  EXPECT_GE(unrolled_by_mutation, 3) << "of " << rolled << " register blocks with a rolled reduction";
}

TEST(SearchSpace, GemmOddLegal) {
  Checker ch(make_task("gemm_37x29x45", gemm(37, 29, 45)));
  ch.run(kSamples, kMutations, kCrossovers, 2);
}

TEST(SearchSpace, ConvBiasReluLegal) {
  Checker ch(make_task("conv_bias_relu", conv_bias_relu(1, 8, 14, 14, 16, 3, 1, 1)));
  print_sketches(ch.space, "conv+bias+relu");
  ASSERT_GE(ch.space.num_sketches(), 1);
  EXPECT_NE(ch.space.sketch_description(0).find("fused consumer relu"), std::string::npos);
  ch.run(kSamples, kMutations, kCrossovers, 3);
}

// A pad computed at the conv's loops is vectorized (it reads its input only
// through clamped select branches); an elementwise stage that reads its input
// plainly is not, there (computing past its region would read out of bounds).
TEST(SearchSpace, OnlyGuardedStagesVectorizedWhereComputedAt) {
  auto vectorized_at = [](const SearchSpace &sp, const std::string &stage, uint64_t seed) {
    std::mt19937_64 rng(seed);
    int at = 0, vec = 0;
    for (int i = 0; i < 200; i++) {
      Candidate c = sp.sample(rng);
      if (!c.params.count(stage + ".loc")) continue;
      c.params[stage + ".loc"] = 2;
      c.params[stage + ".vec"] = 8;
      Schedule s = sp.schedule(c);
      if (s.stage(stage).attach.kind != Attach::At) continue;
      at++;
      for (const auto &l : s.stage(stage).leaves) vec += l.annotation == "vectorize";
    }
    return std::make_pair(at, vec);
  };
  SearchSpace conv(make_task("conv_bias_relu", conv_bias_relu(1, 8, 14, 14, 16, 3, 1, 1)));
  auto [pad_at, pad_vec] = vectorized_at(conv, "pad", 1);
  EXPECT_GT(pad_at, 50);
  EXPECT_EQ(pad_vec, pad_at);
  SearchSpace chain(make_task("chain", elementwise_chain(37, 45)));
  auto [b_at, b_vec] = vectorized_at(chain, "b", 2);
  EXPECT_GT(b_at, 50);
  EXPECT_EQ(b_vec, 0);
}

TEST(SearchSpace, ConvStride2Legal) {
  Checker ch(make_task("conv_s2", conv_bias_relu(1, 8, 14, 14, 16, 3, 2, 1)));
  ch.run(kSamples, kMutations, kCrossovers, 4);
}

TEST(SearchSpace, SoftmaxLegal) {
  Checker ch(make_task("softmax", softmax(13, 37)));
  print_sketches(ch.space, "softmax");
  ch.run(kSamples, kMutations, kCrossovers, 5);
}

TEST(SearchSpace, ElementwiseChainLegal) {
  Checker ch(make_task("eltwise", elementwise_chain(13, 45)));
  print_sketches(ch.space, "elementwise chain");
  ch.run(kSamples, kMutations, kCrossovers, 6);
}

// Every cache_read (packing) choice of the tiled GEMM sketches, on even and odd shapes,
// computes the reference's values (on 64x48x40, a copy in a guarded tail tile did not).
TEST(SearchSpace, GemmCacheReadLegal) {
  for (auto shape : std::vector<std::vector<int>>{{64, 48, 40}, {37, 29, 45}, {32, 64, 256}}) {
    Checker ch(make_task("gemm_cr", gemm(shape[0], shape[1], shape[2])));
    std::mt19937_64 rng(31 + shape[0]);
    int packed = 0, panels = 0;
    for (int i = 0; i < 60; i++) {
      Candidate c = ch.space.sample(rng);
      auto it = c.params.find("C.cache_read");
      ASSERT_NE(it, c.params.end()) << "no cache_read choice in sketch " << c.sketch;
      if (it->second == 0) it->second = 1 + static_cast<int64_t>(rng() % 4);
      Schedule s = ch.space.schedule(c);
      if (s.has_stage("B.cache")) packed++;
      if (s.has_stage("B.cache") && s.stage("B.cache").pack.packed()) {
        // Root panels (choices 3, 4): a whole number of panels along B's columns.
        panels++;
        EXPECT_EQ(s.stage("B.cache").attach.kind, Attach::Root);
        EXPECT_EQ(shape[1] % s.stage("B.cache").pack.factor, 0);
      }
      ch.check(c, "cache_read");
      if (::testing::Test::HasFailure()) return;
    }
    // 29 columns (prime) cannot be cut into panels, nor into tiles of whole
    // vectors without a guarded tail, where a copy of B is wrong in Halide 14
    // (rule_multi_level_tiling.cc, last_axis_tiles_divide): no copy at all.
    // The other shapes get both kinds.
    if (shape[1] == 29) {
      EXPECT_EQ(packed, 0);
    } else {
      EXPECT_GT(packed, 18) << "shape " << shape[0] << "x" << shape[1] << "x" << shape[2];
      EXPECT_GT(panels, 5);
    }
  }
}

// C[i, j] = sum_k A[i, k] W[j, k]: the weight stored [N, K], as ONNX Gemm's transB and dense keep it.
std::vector<Tensor> gemm_transposed_weight(int M, int N, int K) {
  Tensor A = placeholder({M, K}, float32(), "A");
  Tensor W = placeholder({N, K}, float32(), "W");
  IterVar k = reduce_axis(K, "k");
  Tensor C = compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * W(i[1], k.var), {k}); }, "C",
                     "matmul", {"i", "j"});
  return {C};
}

// Root panels (".cache_read" 3, 4) of a weight stored W[N, K] run along its first axis, the one the
// vector's columns index, as B[K, N]'s run along its last: [N / f, K, f], streamed by the register block
// (without them the vector loads of W gathered a column each). Every such candidate computes the
// reference's values, and a constant W is prepackable along axis 0.
TEST(SearchSpace, TransposedWeightPackedAlongItsFirstAxis) {
  const int M = 64, N = 48, K = 40;
  Checker ch(make_task("gemm_wt", gemm_transposed_weight(M, N, K)));
  std::mt19937_64 rng(17);
  int panels = 0;
  for (int i = 0; i < 40; i++) {
    Candidate c = ch.space.sample(rng);
    auto it = c.params.find("C.cache_read");
    ASSERT_NE(it, c.params.end()) << "no cache_read choice in sketch " << c.sketch;
    it->second = 3 + static_cast<int64_t>(rng() % 2);
    Schedule s = ch.space.schedule(c);
    if (s.has_stage("W.cache") && s.stage("W.cache").pack.packed()) {
      panels++;
      const StageInfo &cache = s.stage("W.cache");
      EXPECT_EQ(cache.pack.axis, "ax0") << c.key() << ": the copy's first axis, N";
      int w = -1;
      for (size_t k = 0; k < s.inputs().size(); k++)
        if (s.inputs()[k].name() == "W") w = static_cast<int>(k);
      std::vector<PrepackedInput> pre = prepackable_inputs(s, {w});
      ASSERT_EQ(pre.size(), 1u) << c.key();
      EXPECT_EQ(pre[0].axis, 0);
      const int64_t f = cache.pack.factor;
      EXPECT_EQ(N % f, 0);
      EXPECT_EQ(pre[0].packed_shape, (Shape{N / f, K, f}));
    }
    ch.check(c, "cache_read");
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(panels, 5);
}

// Channel vectorization of conv accumulators (".vec_channel" = 1): every such
// candidate vectorizes the output channels (16 or 32 of 32, as its drawn
// innermost channel length says), stores its accumulator channel-innermost
// and reads the weight packed in panels of as many channels; all legal.
TEST(SearchSpace, ConvChannelVectorLegal) {
  for (int batch : {1, 2}) {
    Checker ch(make_task("conv_vc", conv_bias_relu(batch, 8, 10, 12, 32, 3, 1, 1)));
    std::mt19937_64 rng(77 + batch);
    int channel = 0, two_vectors = 0;
    for (int i = 0; i < 24; i++) {
      Candidate c = ch.space.sample(rng);
      auto it = c.params.find("conv.vec_channel");
      if (it == c.params.end()) continue;  // a sketch whose conv is neither accumulator nor fused producer
      it->second = 1;
      // Every other candidate asks for two vectors (of 32 channels: all of them).
      if (i % 2) c.params["conv.tile.k.1"] = c.params["conv.tile.k.2"] = 1, c.params["conv.tile.k.3"] = 2;
      const int64_t lanes = c.params["conv.tile.k.3"] == 2 ? 32 : 16;
      two_vectors += lanes == 32;
      Schedule s = ch.space.schedule(c);
      ASSERT_TRUE(s.has_stage("weight.cache")) << c.key();
      EXPECT_EQ(s.stage("weight.cache").pack.factor, lanes);
      std::string acc = s.has_stage("conv.local") ? "conv.local" : "conv";
      EXPECT_EQ(s.stage(acc).storage_order, (std::vector<std::string>{"n", "oh", "ow", "k"}));
      const StageInfo &st = s.stage(acc);
      bool channel_vector = false;
      for (const auto &[leaf, roots] : leaf_root_axes(st))
        if (st.leaf_index(leaf) >= 0 && st.leaves[st.leaf_index(leaf)].annotation == "vectorize")
          channel_vector = roots == std::vector<std::string>{"k"} && st.leaves[st.leaf_index(leaf)].extent == lanes;
      EXPECT_TRUE(channel_vector) << trace_to_json(s);
      channel++;
      ch.check(c, "vec_channel");
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GT(channel, 12);
    EXPECT_GT(two_vectors, 5);
  }
  // 24 output channels (not two whole vectors): no such choice.
  SearchSpace sp(make_task("conv_24", conv_bias_relu(1, 8, 10, 12, 24, 3, 1, 1)));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 8; i++) EXPECT_EQ(sp.sample(rng).params.count("conv.vec_channel"), 0u);
  // Depthwise (the data uses the channel axis too): no such choice either.
  Tensor x = placeholder({1, 32, 10, 12}, float32(), "x"), w = placeholder({32, 3, 3}, float32(), "w");
  IterVar ry = reduce_axis(3, "ry"), rx = reduce_axis(3, "rx");
  Tensor dw = compute({1, 32, 8, 10}, [&](const std::vector<Var> &i) {
    return sum(x(i[0], i[1], Expr(i[2]) + ry.var, Expr(i[3]) + rx.var) * w(i[1], ry.var, rx.var), {ry, rx});
  }, "dw", "conv2d", {"n", "k", "h", "w"});
  Tensor out = compute({1, 32, 8, 10}, [&](const std::vector<Var> &i) { return max(dw(i[0], i[1], i[2], i[3]), Expr(0.0f)); },
                       "relu", "elemwise", {"n", "k", "h", "w"});
  SearchSpace dsp(make_task("dw", {out}));
  for (int i = 0; i < 8; i++) EXPECT_EQ(dsp.sample(rng).params.count("dw.vec_channel"), 0u);
}

TEST(SearchSpace, RowSumRfactorLegal) {
  for (auto shape : std::vector<std::vector<int>>{{4, 1024}, {3, 1000}, {1, 4099}}) {
    Checker ch(make_task("rsum", row_sum(shape[0], shape[1])));
    print_sketches(ch.space, "row sum");
    ASSERT_EQ(ch.space.num_sketches(), 2);
    EXPECT_NE(ch.space.sketch_description(0).find("rfactor"), std::string::npos);
    std::mt19937_64 rng(41);
    int factored = 0;
    for (int i = 0; i < 24; i++) {
      Candidate c = ch.space.sample(rng);
      for (int t = 0; t < 20 && c.sketch != 0; t++) c = ch.space.sample(rng);
      if (ch.space.schedule(c).has_stage("rsum.rf")) factored++;
      ch.check(c, "rfactor");
      if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GT(factored, 20);
    ch.run(12, 6, 6, 42);
  }
}

TEST(SearchSpace, Sum2RfactorLegal) {
  Checker ch(make_task("sum2", sum2_scale(2, 6, 300)));
  print_sketches(ch.space, "sum2 + scale");
  ch.run(kSamples, kMutations, kCrossovers, 43);
}

TEST(SearchSpace, GemmDiversityAndDeterminism) {
  SearchSpace sp(make_task("gemm", gemm(64, 48, 40)));
  std::mt19937_64 rng(7);
  std::set<std::string> keys;
  for (int i = 0; i < 100; i++) keys.insert(sp.sample(rng).key());
  std::cout << "distinct GEMM candidate keys among 100 samples: " << keys.size() << "\n";
  EXPECT_GT(keys.size(), 50u);
  std::mt19937_64 r1(11), r2(11);
  for (int i = 0; i < 10; i++) EXPECT_EQ(sp.sample(r1).key(), sp.sample(r2).key());
  // Mutation changes something (almost always) and stays in the same sketch.
  int changed = 0;
  for (int i = 0; i < 50; i++) {
    Candidate c = sp.sample(rng), m = sp.mutate(c, rng);
    EXPECT_EQ(m.sketch, c.sketch);
    changed += m.key() != c.key();
  }
  EXPECT_GT(changed, 40);
  // Crossover of different sketches returns the first parent.
  Candidate a = sp.sample(rng), b = sp.sample(rng);
  for (int t = 0; t < 50 && b.sketch == a.sketch; t++) b = sp.sample(rng);
  if (a.sketch != b.sketch) {
    EXPECT_EQ(sp.crossover(a, b, rng).key(), a.key());
  }
  Candidate bad;
  bad.sketch = 99;
  EXPECT_THROW(sp.steps(bad), Error);
}

// Samples, mutants and children of GEMM 1024 never hold a register block
// over sp.max_register_block() elements, and blocks of every size up
// to it are still drawn.
TEST(SearchSpace, RegisterBlockBounded) {
  SearchSpace sp(avx512_task("gemm1024", gemm(1024, 1024, 1024)));
  std::mt19937_64 rng(3);
  std::set<int64_t> sizes;
  Candidate prev = sp.sample(rng);
  for (int i = 0; i < 300; i++) {
    Candidate c = sp.sample(rng);
    Candidate m = sp.mutate(c, rng);
    Candidate x = sp.crossover(c, prev, rng);
    for (const Candidate *k : {&c, &m, &x}) {
      EXPECT_LE(sp.register_block(*k), sp.max_register_block()) << k->key();
      sizes.insert(sp.register_block(*k));
    }
    prev = c;
  }
  EXPECT_TRUE(sizes.count(256)) << "8x32 and 4x64 blocks must stay reachable";
  // The family of a candidate (policy::Space::family) is its sketch and block shape.
  std::set<std::string> families;
  for (int i = 0; i < 100; i++) families.insert(sp.family(sp.sample(rng)));
  EXPECT_GE(families.size(), 10u);
  EXPECT_GE(sizes.size(), 6u);
  // register_block reads the S3 lengths: blocks made 32x taller mostly exceed the bound.
  int over = 0;
  for (int i = 0; i < 300; i++) {
    Candidate c = sp.sample(rng);
    for (auto &[name, v] : c.params)
      if (name.find(".tile.i.3") != std::string::npos) v *= 32;  // a 32x taller block
    over += sp.register_block(c) > sp.max_register_block();
  }
  EXPECT_GT(over, 200);
}

// Register blocks 6 or 12 rows high (24 accumulators, see kRegisterRows):
// GEMM 1024 samples them although 6 and 12 do not divide 1024, an outer tile
// holds fewer than 6 (12) rows more than its share of the extent (a tile
// larger than the extent only as the one tile of all rows, kOneTileProbability),
// and such candidates compute the reference's values (here on 64 rows: 64 % 6 != 0).
TEST(SearchSpace, RegisterRowsNotDividingTheExtent) {
  SearchSpace sp(avx512_task("gemm1024", gemm(1024, 1024, 1024)));
  std::mt19937_64 rng(5);
  int rows6 = 0, full = 0, one_tile = 0;
  for (int i = 0; i < 800; i++) {
    Candidate c = sp.sample(rng);
    int64_t r = c.params.at("C.tile.i.3");
    if (r % 3 != 0) continue;
    int64_t tile = c.params.at("C.tile.i.1") * c.params.at("C.tile.i.2") * r;
    int64_t tiles = (1024 + tile - 1) / tile;
    EXPECT_LT(tiles * tile - 1024, tiles * r) << c.key();
    if (tile > 1024) {
      EXPECT_EQ(tiles, 1) << c.key();
      EXPECT_EQ(c.params.at("C.tile.i.1"), (1024 + r - 1) / r) << "S1 blocks of r rows cover the extent: " << c.key();
      one_tile++;
    }
    rows6 += r == 6;
    full += sp.register_block(c) == sp.max_register_block();
  }
  EXPECT_GT(rows6, 20);
  EXPECT_GT(full, 10) << "6x64 and 12x32 blocks (384 elements) are drawn";
  EXPECT_GT(one_tile, 6) << "all rows in one outer tile of r-row blocks is drawn";

  Checker ch(make_task("gemm_64x64x32", gemm(64, 64, 32)));
  int checked = 0;
  for (int i = 0; i < 400 && checked < 6; i++) {
    Candidate c = ch.space.sample(rng);
    if (c.params.at("C.tile.i.3") % 3 != 0) continue;
    ch.check(c, "register rows");
    if (::testing::Test::HasFailure()) return;
    checked++;
  }
  EXPECT_EQ(checked, 6);

  // All 64 rows in one tile of 11 blocks of 6 (66 rows, the last block shifted inwards).
  checked = 0;
  for (int i = 0; i < 2000 && checked < 3; i++) {
    Candidate c = ch.space.sample(rng);
    int64_t r = c.params.at("C.tile.i.3");
    if (r % 3 != 0 || c.params.at("C.tile.i.1") * c.params.at("C.tile.i.2") * r <= 64) continue;
    ch.check(c, "one tile over the rows");
    if (::testing::Test::HasFailure()) return;
    checked++;
  }
  EXPECT_EQ(checked, 3);
}

// A mutation that fills the registers keeps an axis in one outer tile: a
// 4x64 block sweeping all 1024 rows ({256, 1, 4}) becomes 6x64 over all rows
// ({171, 1, 6}), not a 6x64 block with the rows split into tiles.
TEST(SearchSpace, MutationFillsTheRegistersOfOneTile) {
  SearchSpace sp(avx512_task("gemm1024", gemm(1024, 1024, 1024)));
  std::mt19937_64 rng(11);
  Candidate c = sp.sample(rng);
  for (auto [axis, l] : std::map<std::string, std::vector<int64_t>>{{"i", {256, 1, 4}}, {"j", {2, 1, 64}}})
    for (int k = 1; k <= 3; k++) c.params["C.tile." + axis + "." + std::to_string(k)] = l[k - 1];
  int filled = 0;
  for (int n = 0; n < 400; n++) {
    Candidate m = sp.mutate(c, rng);
    if (m.params.at("C.tile.i.3") != 6) continue;
    filled++;
    EXPECT_EQ(m.params.at("C.tile.i.1"), 171) << m.key();
    EXPECT_EQ(m.params.at("C.tile.i.2"), 1) << m.key();
  }
  EXPECT_GT(filled, 10);
}

// The analytical seeds of GEMM 1024 (SearchSpace::seeds): register blocks of
// 6 x 64 and 12 x 32 (24 accumulator registers), all rows in one outer tile
// of such blocks, tasks of 1 or 2 block widths (2 first where their panels of
// B fit the L2), B packed in panels as wide as the block, the reduction
// unrolled by 4; they are valid candidates, and on GEMM 64x64x32 (rows not a multiple of 6) they compute the reference's values.
// (Convolutions: AnalyticalSeedsForConv.)
TEST(SearchSpace, AnalyticalSeedsForGemm) {
  SearchSpace sp(avx512_task("gemm1024", gemm(1024, 1024, 1024)));
  std::vector<Candidate> seeds = sp.seeds();
  ASSERT_GE(seeds.size(), 4u);
  std::set<std::string> keys;
  for (const Candidate &c : seeds) {
    SCOPED_TRACE(c.key());
    keys.insert(c.key());
    EXPECT_EQ(sp.register_block(c), sp.max_register_block());
    int64_t cols = c.params.at("C.tile.j.3"), rows = c.params.at("C.tile.i.3");
    EXPECT_TRUE((rows == 6 && cols == 64) || (rows == 12 && cols == 32));
    if (rows == 12 && c.params.at("C.tile.i.1") == 1) {
      // 12 rows of A over K = 1024 (48 KiB) exceed the L1: K blocks of 256 (12 KiB; AnalyticalSeedsBlockALongReduction).
      EXPECT_EQ(c.params.at("C.tile.i.2"), (1024 + rows - 1) / rows);
      EXPECT_EQ(c.params.at("C.tile.k.1"), 256);
    } else {
      EXPECT_EQ(c.params.at("C.tile.i.1"), (1024 + rows - 1) / rows);
      EXPECT_EQ(c.params.at("C.tile.i.2"), 1);
      EXPECT_EQ(c.params.at("C.tile.k.1"), 4);
    }
    EXPECT_EQ(c.params.at("C.cache_read"), 3);
    EXPECT_NO_THROW(sp.schedule(c));
  }
  EXPECT_EQ(keys.size(), seeds.size()) << "seeds are distinct";
  // K = 1024: two 64-column panels of B (512 KiB) fit the L2, so a task takes two block widths first.
  EXPECT_EQ(seeds.front().params.at("C.tile.j.1"), 2) << seeds.front().key();

  // K = 3072 (ViT's MLP down-projection): two panels (1.5 MiB) would not, so one block width first.
  SearchSpace deep(avx512_task("gemm_deep", gemm(64, 768, 3072)));
  std::vector<Candidate> deep_seeds = deep.seeds();
  ASSERT_FALSE(deep_seeds.empty());
  EXPECT_EQ(deep_seeds.front().params.at("C.tile.j.3"), 64) << deep_seeds.front().key();
  EXPECT_EQ(deep_seeds.front().params.at("C.tile.j.1"), 1) << deep_seeds.front().key();
  EXPECT_TRUE(std::any_of(deep_seeds.begin(), deep_seeds.end(), [](const Candidate &c) {
    return c.params.at("C.tile.j.1") == 2;
  })) << "two block widths remain a seed for the search";

  Checker ch(make_task("gemm_64x64x32", gemm(64, 64, 32)));
  std::vector<Candidate> small = ch.space.seeds();
  EXPECT_FALSE(small.empty());
  for (const Candidate &c : small) ch.check(c, "seed");

}

// Where a register block's rows of A over the whole reduction exceed a 32 KiB
// L1 (6 x 3072 fp32 = 72 KiB: BERT-base's MLP down-projection), the first
// seed runs the reduction in K blocks of 512 (the largest divisor whose slice
// fits half of it), outermost in the task: every row block under one S1
// tile, one panel per task, the block's k loop split by 4 and unrolled.
// Where the slice fits (K = 768: 18 KiB) the first seed keeps the whole
// reduction per row block. K-blocked seeds compute the reference's values.
TEST(SearchSpace, AnalyticalSeedsBlockALongReduction) {
  SearchSpace sp(avx512_task("mlp_down", gemm(128, 768, 3072)));
  const Candidate first = sp.seeds().front();
  SCOPED_TRACE(first.key());
  EXPECT_EQ(first.params.at("C.tile.i.1"), 1);
  EXPECT_EQ(first.params.at("C.tile.i.2"), 22);
  EXPECT_EQ(first.params.at("C.tile.i.3"), 6);
  EXPECT_EQ(first.params.at("C.tile.j.1"), 1);
  EXPECT_EQ(first.params.at("C.tile.j.3"), 64);
  EXPECT_EQ(first.params.at("C.tile.k.1"), 512);
  std::set<std::string> split_by_4;
  bool inner_unrolled = false;
  for (const Step &s : sp.steps(first)) {
    if (auto *x = std::get_if<SplitStep>(&s); x && x->axis.rfind("k", 0) == 0 && x->factor == 4) split_by_4.insert(x->axis + "_i");
    if (auto *u = std::get_if<UnrollStep>(&s); u && split_by_4.count(u->axis)) inner_unrolled = true;
  }
  EXPECT_TRUE(inner_unrolled) << "the 512-step k loop is unrolled by 4";

  SearchSpace up(avx512_task("mlp_up", gemm(128, 3072, 768)));
  EXPECT_EQ(up.seeds().front().params.at("C.tile.i.2"), 1) << up.seeds().front().key();
  EXPECT_EQ(up.seeds().front().params.at("C.tile.k.1"), 4) << up.seeds().front().key();

  Checker ch(make_task("gemm_20x64x2048", gemm(20, 64, 2048)));
  int blocked = 0;
  for (const Candidate &c : ch.space.seeds()) {
    if (!c.params.count("C.tile.i.1") || c.params.at("C.tile.i.1") != 1 || c.params.at("C.tile.k.1") == 4) continue;
    blocked++;
    ch.check(c, "K-blocked seed");
  }
  EXPECT_GT(blocked, 0);
}

// A GEMM whose column tasks would leave a thread idle (ConvNeXt-T's stage-2
// MLP down-projection: 784 rows, 192 columns, 3 tasks of a 64-column panel)
// splits its rows into the fewest outer tiles that balance the threads. On 2
// threads, 2 tiles of 66 blocks of 6 rows: 2 tasks (the tiles do not divide
// 784 rows, so the tailed row loop runs in parallel alone); on 4 threads, 4
// tiles. Where the tiles divide the rows (768), 2 tiles x 3 panels = 6 tasks.
// All rows in one tile on 1 thread, or where the columns alone make 6 tasks
// (768 columns in pairs of panels).
TEST(SearchSpace, AnalyticalSeedsBalanceTheThreads) {
  auto first_seed = [](int64_t m, int64_t n, int threads) {
    SearchSpace sp(make_task("gemm", gemm(m, n, 768), kAvx512, threads));
    Candidate c = sp.seeds().front();
    return std::make_pair(c.params.at("C.tile.i.1"), parallel_extent(sp.schedule(c).stage("C")));
  };
  EXPECT_EQ(first_seed(784, 192, 2), std::make_pair(int64_t{66}, int64_t{2}));
  EXPECT_EQ(first_seed(784, 192, 4), std::make_pair(int64_t{33}, int64_t{4}));
  EXPECT_EQ(first_seed(768, 192, 2), std::make_pair(int64_t{64}, int64_t{6}));
  EXPECT_EQ(first_seed(784, 192, 1).first, 131);
  EXPECT_EQ(first_seed(784, 768, 2), std::make_pair(int64_t{131}, int64_t{6}));

  // On this CPU, one task of a 6-row block's columns (64 on AVX-512, 16 on AVX2) over 50 rows: the
  // seeds split the rows in 2 tiles (the last shifted inwards), and compute the reference's values.
  const int64_t block_cols = SearchSpace(make_task("probe", gemm(6, 16, 8))).max_register_block() / 6;
  Checker ch(make_task("gemm_50xNx64", gemm(50, block_cols, 64), Target{}, 2));
  int tiled = 0;
  for (const Candidate &c : ch.space.seeds()) {
    if (!c.params.count("C.tile.i.3") || c.params.at("C.tile.i.1") * c.params.at("C.tile.i.3") >= 50) continue;
    tiled++;
    ch.check(c, "rows in tiles");
  }
  EXPECT_GT(tiled, 0);
}

// On AVX2 (16 registers of 8 lanes) the block is 12 accumulator registers,
// 96 elements: the 6-row block first, 6 x 16 (BLIS's Haswell sgemm block),
// then 3 x 32; AVX-512's 6 x 64 would need 48 registers and spill.
TEST(SearchSpace, AnalyticalSeedsForGemmOnAvx2) {
  SearchSpace sp(make_task("gemm1024", gemm(1024, 1024, 1024), kAvx2));
  EXPECT_EQ(sp.vector_lanes(), 8);
  EXPECT_EQ(sp.max_register_block(), 96);
  SearchSpace wide(avx512_task("gemm1024", gemm(1024, 1024, 1024)));
  EXPECT_EQ(wide.vector_lanes(), 16);
  EXPECT_EQ(wide.max_register_block(), 384);
  std::vector<Candidate> seeds = sp.seeds();
  ASSERT_GE(seeds.size(), 2u);
  EXPECT_EQ(seeds.front().params.at("C.tile.i.3"), 6) << seeds.front().key();
  EXPECT_EQ(seeds.front().params.at("C.tile.j.3"), 16) << seeds.front().key();
  std::set<int64_t> cols;
  for (const Candidate &c : seeds) {
    if (!c.params.count("C.cache_read") || c.params.at("C.cache_read") != 3) continue;
    EXPECT_EQ(sp.register_block(c), 96) << c.key();
    cols.insert(c.params.at("C.tile.j.3"));
  }
  EXPECT_EQ(cols, (std::set<int64_t>{16, 32}));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; i++) EXPECT_LE(sp.register_block(sp.mutate(sp.sample(rng), rng)), 96);
}

// Convolutions get direct-convolution seeds (output-channel vectors x a block
// of columns and rows), or spatial-vector seeds where the channels are not a
// whole number of vectors; every seed equals the reference, on odd shapes too.
// A depthwise conv gets spatial-vector seeds, the stage tiled alone first.
TEST(SearchSpace, AnalyticalSeedsForConv) {
  struct Case {
    int C, H, W, K, R, stride, pad;
    bool channel_vector;
  };
  for (const Case &k : {Case{16, 28, 28, 64, 3, 1, 1, true}, Case{5, 17, 19, 32, 3, 2, 1, true},
                        Case{7, 9, 7, 48, 1, 1, 0, true}, Case{12, 11, 13, 24, 3, 1, 1, false},
                        Case{9, 15, 10, 5, 5, 2, 2, false}}) {
    SCOPED_TRACE(::testing::Message() << "C" << k.C << " " << k.H << "x" << k.W << " K" << k.K << " R" << k.R << " s"
                                      << k.stride);
    Checker ch(make_task("conv", conv_bias_relu(1, k.C, k.H, k.W, k.K, k.R, k.stride, k.pad)));
    std::vector<Candidate> seeds = ch.space.seeds();
    ASSERT_FALSE(seeds.empty());
    auto channel_vectorized = [](const Candidate &c) {
      auto vc = c.params.find("conv.vec_channel");
      return vc != c.params.end() && vc->second == 1;
    };
    // A reduction of at most one vector (C x R x R <= 16) puts a spatial-vector seed first.
    const bool short_reduction = k.C * k.R * k.R <= 16;
    EXPECT_EQ(channel_vectorized(seeds.front()), k.channel_vector && !short_reduction) << seeds.front().key();
    for (size_t i = 1; i < seeds.size(); i++) EXPECT_EQ(channel_vectorized(seeds[i]), k.channel_vector) << seeds[i].key();
    for (const Candidate &c : seeds) {
      EXPECT_LE(ch.space.register_block(c), ch.space.max_register_block());
      ch.check(c, "seed");
      if (::testing::Test::HasFailure()) return;
    }
  }
  Tensor data = placeholder({1, 32, 14, 14}, float32(), "data");
  Tensor weight = placeholder({32, 3, 3}, float32(), "weight");
  IterVar ry = reduce_axis(3, "ry"), rx = reduce_axis(3, "rx");
  Tensor dw = compute({1, 32, 12, 12},
                      [&](const std::vector<Var> &i) {
                        return sum(data(i[0], i[1], Expr(i[2]) + ry.var, Expr(i[3]) + rx.var) * weight(i[1], ry.var, rx.var),
                                   {ry, rx});
                      },
                      "dw", "depthwise_conv2d", {"n", "c", "h", "w"});
  Checker dwc(make_task("depthwise", {dw}));
  std::vector<Candidate> dws = dwc.space.seeds();
  ASSERT_FALSE(dws.empty());
  EXPECT_EQ(dwc.space.family(dws.front()).find("at_level"), std::string::npos)
      << "the stage alone (no accumulator copy) first: " << dwc.space.family(dws.front());
  for (const Candidate &c : dws) dwc.check(c, "depthwise seed");
}

// A 1x1 conv of 24 output channels (not a whole number of vectors) and a
// reduction longer than a kernel window: its spatial-vector seed holds 8 of
// the output channels in registers, each input load shared by them.
TEST(SearchSpace, SpatialSeedBlocksSharedOutputChannels) {
  Checker ch(make_task("conv", conv_bias_relu(1, 72, 9, 11, 24, 1, 1, 0)));
  std::vector<Candidate> seeds = ch.space.seeds();
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(seeds.front().params.at("conv.tile.k.3"), 8) << seeds.front().key();
  for (const Candidate &c : seeds) ch.check(c, "seed");
}

// A 3x3 NCHW conv over many input channels whose 24 output channels are not
// whole vectors (PP-OCR det's neck on AVX-512): on AVX-512 its spatial-vector
// seed holds 8 output channels x 2 vectors of columns, each input vector
// serving every channel (2.9x faster than 8 rows of 1 channel on det's conv);
// on AVX2 (12 accumulators) rows of 1 channel as before. Both compute the
// reference's values.
TEST(SearchSpace, WindowSeedOverManyChannelsBlocksOutputChannelsOnAvx512) {
  const std::vector<int64_t> shape = {1, 96, 6, 32, 24, 3, 3, 1, 1};
  Checker wide(make_task("conv2d", ops::build_op("conv2d", shape).outputs, kAvx512));
  std::vector<Candidate> seeds = wide.space.seeds();
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(param(seeds.front(), ".tile.c.3"), 8) << seeds.front().key();
  EXPECT_EQ(param(seeds.front(), ".tile.w.3"), 32) << seeds.front().key();
  EXPECT_EQ(wide.space.register_block(seeds.front()), 8 * 32) << seeds.front().key();
  wide.check(seeds.front(), "AVX-512 seed");
  Checker narrow(make_task("conv2d", ops::build_op("conv2d", shape).outputs, kAvx2));
  seeds = narrow.space.seeds();
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(param(seeds.front(), ".tile.c.3"), 1) << seeds.front().key();
  EXPECT_GT(param(seeds.front(), ".tile.h.3"), 1) << seeds.front().key();
  EXPECT_LE(narrow.space.register_block(seeds.front()), 96) << seeds.front().key();
  narrow.check(seeds.front(), "AVX2 seed");
}

// A batched matmul of activations over 197 rows (ViT's attention; 197 is
// prime) gets a spatial-vector seed of 8 rows, the last of 25 row blocks
// computing 3 rows beyond the extent, where the largest divisor would hold 1
// row (2 accumulators: 2.6x slower untuned); over 28 rows a divisor that
// fills as many blocks (7) is taken before a tail (8). Both compute the
// reference's values.
TEST(SearchSpace, SpatialSeedRowsWithATailWhereNoDivisorFillsTheBlock) {
  for (const auto &[rows, want] : std::vector<std::pair<int64_t, int64_t>>{{197, 8}, {28, 7}}) {
    Checker ch(make_task("bmm", ops::build_op("batch_matmul", {2, rows, 64, 40}).outputs, kAvx512));
    std::vector<Candidate> seeds = ch.space.seeds();
    ASSERT_FALSE(seeds.empty());
    const Candidate &c = seeds.front();
    int64_t row_block = 0;
    for (const auto &[name, v] : c.params)
      if (name.size() > 9 && name.compare(name.size() - 9, 9, ".tile.i.3") == 0) row_block = v;
    EXPECT_EQ(row_block, want) << rows << " rows: " << c.key();
    EXPECT_EQ(ch.space.register_block(c), want * 16) << c.key();
    ch.check(c, "seed");
  }
}

// A batched matmul of activations reduces across K (64), not over a kernel
// window: its first seed keeps the accumulators in a local copy written back
// once (at_level), as the GEMM and the blocked convs do (a depthwise conv
// does not: AnalyticalSeedsForConv).
TEST(SearchSpace, BatchedMatmulSeedAccumulatesInALocalCopy) {
  Checker ch(make_task("bmm", ops::build_op("batch_matmul", {2, 197, 64, 40}).outputs, kAvx512));
  std::vector<Candidate> seeds = ch.space.seeds();
  ASSERT_FALSE(seeds.empty());
  EXPECT_NE(ch.space.family(seeds.front()).find("at_level"), std::string::npos) << ch.space.family(seeds.front());
  ch.check(seeds.front(), "seed");
}

// On AVX-512, a reduction over blocked channels (the blocked conv, the
// Winograd GEMM) gets a spatial-vector seed of 14 rows of 16-lane blocks (224
// accumulator lanes); other reductions at most 8 vectors in that model (a
// batched matmul with the same 16-wide weight blocks, an NCHW conv). On AVX2
// no seed block exceeds its 96 lanes (12 of 16 registers).
TEST(SearchSpace, BlockedChannelSeedHoldsFourteenVectors) {
  auto blocks = [](const std::string &op, const std::vector<int64_t> &shape, const Target &target) {
    SearchSpace sp(make_task(op, ops::build_op(op, shape).outputs, target));
    std::set<int64_t> out;
    for (const Candidate &c : sp.seeds()) out.insert(sp.register_block(c));
    return out;
  };
  EXPECT_TRUE(blocks("conv2d_nchwc", {1, 32, 14, 14, 32, 3, 3, 16, 16, 1, 1}, kAvx512).count(224));
  EXPECT_TRUE(blocks("winograd_gemm_nchwc", {16, 32, 28, 32, 16, 16}, kAvx512).count(224));
  EXPECT_FALSE(blocks("batch_matmul", {16, 28, 16, 16}, kAvx512).count(224));
  EXPECT_FALSE(blocks("conv2d", {1, 16, 14, 14, 32, 3, 3, 1, 1}, kAvx512).count(224));
  for (const auto &[op, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"conv2d_nchwc", {1, 32, 14, 14, 32, 3, 3, 8, 8, 1, 1}}, {"conv2d", {1, 16, 14, 14, 32, 3, 3, 1, 1}}}) {
    std::set<int64_t> b = blocks(op, shape, kAvx2);
    EXPECT_FALSE(b.empty()) << op << " has seeds on AVX2";
    if (!b.empty()) EXPECT_LE(*b.rbegin(), 96) << op;
  }
}

// A 1x1 blocked conv's seed shares each broadcast input among output-channel
// blocks and each weight vector among columns: of the blocks that fill the
// most accumulators, the one with the fewest loads per FMA. On AVX2 (12
// accumulators) 2 blocks x 4 columns, on AVX-512 (14) 2 x 7; the
// input-channel block outside them. A 3x3 conv keeps one block (rows of the
// window instead).
TEST(SearchSpace, PointwiseBlockedConvSeedSharesLoads) {
  auto front = [](const std::vector<int64_t> &shape, const Target &target) {
    SearchSpace sp(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", shape).outputs, target));
    std::vector<Candidate> seeds = sp.seeds();
    return seeds.empty() ? Candidate{} : seeds.front();
  };
  const Candidate avx2 = front({1, 64, 28, 28, 64, 1, 1, 8, 8, 1, 0}, kAvx2);
  EXPECT_EQ(param(avx2, ".tile.k.3"), 2) << avx2.key();
  EXPECT_EQ(param(avx2, ".tile.w.3"), 4) << avx2.key();
  const Candidate avx512 = front({1, 64, 28, 28, 64, 1, 1, 16, 16, 1, 0}, kAvx512);
  EXPECT_EQ(param(avx512, ".tile.k.3"), 2) << avx512.key();
  EXPECT_EQ(param(avx512, ".tile.w.3"), 7) << avx512.key();
  // A 3x3 conv: the same kind of block for each tap, its input lanes innermost
  // (WindowedConvSeedRunsEachTapAsA1x1BlockOnAvx2).
  const Candidate window = front({1, 64, 28, 28, 64, 3, 3, 8, 8, 1, 1}, kAvx2);
  EXPECT_EQ(param(window, ".tile.k.3"), 4) << window.key();
  EXPECT_EQ(param(window, ".lanes_last"), 1) << window.key();
  // Two weight panels of 1024 channels x 8 lanes (64 KiB) would not stay in
  // L1: the input channels in chunks of 16 blocks (4 panels of 128 channels,
  // 16 KiB), each swept past the whole 14 x 14 output, 4 blocks x 2 columns.
  const Candidate deep = front({1, 1024, 14, 14, 64, 1, 1, 8, 8, 1, 0}, kAvx2);
  EXPECT_EQ(param(deep, ".tile.k.3"), 4) << deep.key();
  EXPECT_EQ(param(deep, ".tile.w.3"), 2) << deep.key();
  EXPECT_EQ(param(deep, ".tile.w.2"), 7) << deep.key();
  EXPECT_EQ(param(deep, ".tile.rco.1"), 16) << deep.key();
  EXPECT_EQ(param(deep, ".tile.rci.1"), 8) << deep.key();
  // A prime width (7) has no column block: 3 image rows instead, the last
  // tile guarded, where the weight exceeds L2 (8 MiB), and on AVX2 below it
  // too (1024 x 64, 256 KiB).
  // All 7 rows in one outer tile of 3 blocks (S2 x S3 = 9, clamped to 7), so the output's
  // loops over them have no tail: tiles of 3 rows would shift the last one inwards and
  // compute 9 rows for 7 (1.14-1.19x slower on ResNet-50's 7x7 convs, bench/RESULTS.md).
  const std::vector<int64_t> prime_shape = {1, 1024, 14, 14, 2048, 1, 1, 8, 8, 2, 0};
  const Candidate prime = front(prime_shape, kAvx2);
  EXPECT_EQ(param(prime, ".tile.k.3"), 4) << prime.key();
  EXPECT_EQ(param(prime, ".tile.h.3"), 3) << prime.key();
  EXPECT_EQ(param(prime, ".tile.h.2"), 3) << prime.key();
  EXPECT_EQ(param(prime, ".tile.w.3"), 1) << prime.key();
  {
    Task task = make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", prime_shape).outputs, kAvx2);
    const Schedule sch = SearchSpace(task).schedule(prime);
    const StageInfo &out = sch.stage(task.outputs.front());
    int row_loops = 0;
    for (const LeafAxis &leaf : out.leaves)
      if (leaf.name.rfind("h", 0) == 0) {
        row_loops++;
        EXPECT_FALSE(leaf.has_tail) << leaf.name << " of " << out.name << " in " << prime.key();
      }
    EXPECT_GT(row_loops, 0) << prime.key();
  }
  const Candidate small_prime = front({1, 1024, 14, 14, 64, 1, 1, 8, 8, 2, 0}, kAvx2);
  EXPECT_EQ(param(small_prime, ".tile.k.3"), 4) << small_prime.key();
  EXPECT_EQ(param(small_prime, ".tile.h.3"), 3) << small_prime.key();
  EXPECT_EQ(param(small_prime, ".tile.w.3"), 1) << small_prime.key();
  // A prime width no column count divides (17; weight within L2): guarded tiles of 6 columns x 2 blocks
  // (3 tiles cover 18 columns), not 1 column.
  const Candidate odd = front({1, 768, 17, 17, 160, 1, 1, 16, 16, 1, 0}, kAvx512);
  EXPECT_EQ(param(odd, ".tile.k.3"), 2) << odd.key();
  EXPECT_EQ(param(odd, ".tile.w.3"), 6) << odd.key();
  // The same for a whole-panel block (5 output blocks: no pairs to chunk; Inception's 73x73 conv):
  // 1 block x 13 guarded columns (6 tiles cover 78), not 1 x 1; equal to the reference.
  Checker panel(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 64, 73, 73, 80, 1, 1, 16, 16, 1, 0}).outputs, kAvx512));
  ASSERT_FALSE(panel.space.seeds().empty());
  EXPECT_EQ(param(panel.space.seeds().front(), ".tile.k.3"), 1) << panel.space.seeds().front().key();
  EXPECT_EQ(param(panel.space.seeds().front(), ".tile.w.3"), 13) << panel.space.seeds().front().key();
  panel.check(panel.space.seeds().front(), "whole-panel guarded seed");
  // The Winograd GEMM blocks its output channels k, not the batch axis e that both inputs share.
  SearchSpace gemm(make_task("winograd_gemm", ops::build_op("winograd_gemm_nchwc", {16, 32, 28, 32, 8, 8}).outputs, kAvx2));
  ASSERT_FALSE(gemm.seeds().empty());
  EXPECT_EQ(param(gemm.seeds().front(), ".tile.k.3"), 2) << gemm.seeds().front().key();
  EXPECT_EQ(param(gemm.seeds().front(), ".tile.e.3"), 1) << gemm.seeds().front().key();
  // Its accumulators in a local copy (cache_write), written back once after the reduction.
  const std::string gemm_trace = trace_to_json(gemm.schedule(gemm.seeds().front()));
  EXPECT_NE(gemm_trace.find("cache_write"), std::string::npos) << gemm_trace;
  Checker narrow_gemm(make_task("winograd_gemm", ops::build_op("winograd_gemm_nchwc", {16, 32, 37, 64, 16, 16}).outputs, kAvx512));
  ASSERT_FALSE(narrow_gemm.space.seeds().empty());
  narrow_gemm.check(narrow_gemm.space.seeds().front(), "Winograd GEMM seed");

  Checker ch(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 32, 14, 14, 32, 1, 1, 8, 8, 1, 0}).outputs, kAvx2));
  for (const Candidate &c : ch.space.seeds()) ch.check(c, "seed");
  // Chunked (90 blocks in chunks of 15) with guarded rows (7 = 3 + 3 + 1): equal to the reference.
  Checker chunked(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 720, 7, 7, 512, 1, 1, 8, 8, 1, 0}).outputs, kAvx2));
  ASSERT_FALSE(chunked.space.seeds().empty());
  EXPECT_EQ(param(chunked.space.seeds().front(), ".tile.rco.1"), 15) << chunked.space.seeds().front().key();
  EXPECT_EQ(param(chunked.space.seeds().front(), ".tile.h.3"), 3) << chunked.space.seeds().front().key();
  EXPECT_EQ(param(chunked.space.seeds().front(), ".tile.h.2"), 3) << chunked.space.seeds().front().key();
  for (const Candidate &c : chunked.space.seeds()) chunked.check(c, "chunked seed");
}

// On AVX-512 a 1x1 blocked conv whose two weight panels exceed half of L1
// (256 or more input channels) streams whole panels from L2 in a block of 4
// output-channel blocks x 4 pixels: a row of 4 columns where 4 divides the
// width, else 2 rows x 2 columns; the input-channel block outside the output
// blocks. AVX2 (12 accumulators) and a prime width (7) keep the other forms.
TEST(SearchSpace, DeepPointwiseConvSeedStreamsPanelsFromL2) {
  Checker wide(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 256, 28, 28, 64, 1, 1, 16, 16, 1, 0}).outputs, kAvx512));
  ASSERT_FALSE(wide.space.seeds().empty());
  const Candidate row = wide.space.seeds().front();
  EXPECT_EQ(param(row, ".tile.k.3"), 4) << row.key();
  EXPECT_EQ(param(row, ".tile.w.3"), 4) << row.key();
  EXPECT_EQ(param(row, ".tile.h.3"), 1) << row.key();
  EXPECT_EQ(param(row, ".tile.rci.1"), 1) << row.key();
  wide.check(row, "4 blocks x 4 columns");
  Checker square(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 512, 14, 14, 64, 1, 1, 16, 16, 1, 0}).outputs, kAvx512));
  ASSERT_FALSE(square.space.seeds().empty());
  const Candidate sq = square.space.seeds().front();
  EXPECT_EQ(param(sq, ".tile.k.3"), 4) << sq.key();
  EXPECT_EQ(param(sq, ".tile.w.3"), 2) << sq.key();
  EXPECT_EQ(param(sq, ".tile.h.3"), 2) << sq.key();
  square.check(sq, "4 blocks x 2 x 2 pixels");
  // 128 input channels: two panels fit half of L1, the 2 x 7 block stays.
  SearchSpace shallow(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 128, 14, 14, 64, 1, 1, 16, 16, 1, 0}).outputs, kAvx512));
  ASSERT_FALSE(shallow.seeds().empty());
  EXPECT_EQ(param(shallow.seeds().front(), ".tile.k.3"), 2) << shallow.seeds().front().key();
  EXPECT_EQ(param(shallow.seeds().front(), ".tile.w.3"), 7) << shallow.seeds().front().key();
  // AVX2's 16 registers: no 4 x 4 block.
  SearchSpace avx2(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 256, 28, 28, 64, 1, 1, 8, 8, 1, 0}).outputs, kAvx2));
  ASSERT_FALSE(avx2.seeds().empty());
  EXPECT_LT(avx2.register_block(avx2.seeds().front()), 16 * 8) << avx2.seeds().front().key();
}

// A blocked conv with a kernel window (ResNet-50's stride-2 3x3) holds 2
// output-channel blocks x 7 columns, each broadcast input serving both
// blocks; an odd block count keeps 1 block.
TEST(SearchSpace, WindowedBlockedConvSeedSharesInputsAmongTwoBlocks) {
  Checker strided(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 64, 14, 14, 64, 3, 3, 16, 16, 2, 1}).outputs, kAvx512));
  ASSERT_FALSE(strided.space.seeds().empty());
  const Candidate c = strided.space.seeds().front();
  EXPECT_EQ(param(c, ".tile.k.3"), 2) << c.key();
  EXPECT_EQ(param(c, ".tile.w.3"), 7) << c.key();
  strided.check(c, "2 blocks x 7 columns, stride 2");
  SearchSpace odd(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 48, 14, 14, 48, 3, 3, 16, 16, 1, 1}).outputs, kAvx512));
  ASSERT_FALSE(odd.seeds().empty());
  EXPECT_EQ(param(odd.seeds().front(), ".tile.k.3"), 1) << odd.seeds().front().key();
}

// On AVX2 a windowed blocked conv keeps one output-channel block x 7 columns;
// where its input channels exceed a vector of blocks and the block divides the
// columns, its first seed takes them in chunks whose weights stay in L1, each
// chunk swept past the whole output (R2 of rco: 4 blocks; S2 of w: both column
// tiles), and the whole-reduction form follows it. Guarded columns (28 in tiles
// of 10) and 16 blocks of input channels keep the whole reduction.
TEST(SearchSpace, WindowedConvSeedChunksItsInputChannelsOnAvx2) {
  Checker strided(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 256, 28, 28, 256, 3, 3, 8, 8, 2, 1}).outputs, kAvx2));
  const std::vector<Candidate> seeds = strided.space.seeds();
  ASSERT_GE(seeds.size(), 3u);
  const Candidate &chunked = seeds[1], &whole = seeds[2];  // (seeds[0]: the lanes-last seed, tested below)
  EXPECT_EQ(param(chunked, ".tile.k.3"), 1) << chunked.key();
  EXPECT_EQ(param(chunked, ".tile.w.3"), 7) << chunked.key();
  EXPECT_EQ(param(chunked, ".tile.w.2"), 2) << chunked.key();
  EXPECT_EQ(param(chunked, ".tile.rco.1"), 4) << chunked.key();
  EXPECT_EQ(param(chunked, ".tile.rci.1"), 8) << chunked.key();
  strided.check(chunked, "input channels in chunks of 4 blocks");
  EXPECT_EQ(param(whole, ".tile.w.3"), 7) << whole.key();
  EXPECT_EQ(param(whole, ".tile.rco.1"), 1) << whole.key();
  strided.check(whole, "the whole reduction per 7-column tile");
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{1, 192, 28, 28, 192, 3, 3, 8, 8, 1, 1},
                                            std::vector<int64_t>{1, 128, 28, 28, 128, 3, 3, 8, 8, 2, 1}}) {
    SearchSpace sp(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", shape).outputs, kAvx2));
    const int64_t blocks = shape[1] / 8;  // rco: whole in the outer (1) or the inner reduce level, never in chunks
    for (const Candidate &c : sp.seeds())
      EXPECT_TRUE(param(c, ".tile.rco.1") == 1 || param(c, ".tile.rco.1") == blocks) << shape[1] << " channels: " << c.key();
  }
}

// A windowed conv on AVX2 first gets 4 output-channel blocks x 2 columns with each
// tap's input lanes innermost: the reorder puts rci after ry and rx in the inner
// reduce loops, the outer input-channel blocks (rco) stay whole in the outer one,
// and the result equals the reference. With 7 columns (no even column block) the block
// holds 2 image rows instead; AVX-512's seed holds 2 blocks x 7 columns.
TEST(SearchSpace, WindowedConvSeedRunsEachTapAsA1x1BlockOnAvx2) {
  // The inner reduce loops run the taps, then the input lanes (rci_i), then the register block's output
  // channels and `block_axis` (its columns or rows); false when no reorder holds rci_i.
  auto lanes_after_taps = [](const std::vector<Step> &steps, const std::string &block_axis) {
    bool reordered = false;
    for (const Step &s : steps)
      if (auto *r = std::get_if<ReorderStep>(&s); r && std::count(r->order.begin(), r->order.end(), "rci_i")) {
        std::vector<size_t> at;  // the first axis named x... in the order, for each x
        for (const std::string &n : {"ry_i", "rx_i", "rci_i", block_axis.c_str()})
          at.push_back(std::find_if(r->order.begin(), r->order.end(), [&](const std::string &a) { return a.rfind(n, 0) == 0; }) -
                       r->order.begin());
        EXPECT_LT(at[0], at[2]);
        EXPECT_LT(at[1], at[2]);
        EXPECT_EQ(at[2] + 2, at[3]) << "rci_i, then the register block's output channels and " << block_axis;
        reordered = true;
      }
    return reordered;
  };
  // (Fewer input channels than ResNet's 256: 2304-term sums in another order differ from the reference's by 2e-4.)
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{1, 64, 28, 28, 64, 3, 3, 8, 8, 2, 1},
                                            std::vector<int64_t>{1, 32, 14, 14, 32, 3, 3, 8, 8, 1, 1},
                                            std::vector<int64_t>{1, 16, 12, 12, 32, 5, 5, 8, 8, 1, 2}}) {
    Checker ch(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", shape).outputs, kAvx2));
    const std::vector<Candidate> seeds = ch.space.seeds();
    ASSERT_FALSE(seeds.empty());
    const Candidate &quad = seeds[0];
    SCOPED_TRACE(quad.key());
    EXPECT_EQ(param(quad, ".lanes_last"), 1);
    EXPECT_EQ(param(quad, ".tile.k.3"), 4);
    EXPECT_EQ(param(quad, ".tile.w.3"), 2);
    EXPECT_EQ(param(quad, ".tile.rco.1"), shape[1] / 8 > 1 ? 1 : -1);  // (one block: no rco tile)
    EXPECT_EQ(param(quad, ".tile.rci.1"), 8);
    EXPECT_TRUE(lanes_after_taps(ch.space.steps(quad), "w_i_i_i"));
    ch.check(quad, "4 blocks x 2 columns, lanes last");
  }
  // An odd width (7 columns, stride 2 and 1): 4 blocks x 2 image rows instead, all 7 rows in
  // one outer tile (4 pairs, the last guarded), the columns a loop around the block; not
  // where the output-channel blocks give the threads fewer than 2 tasks each (4 blocks).
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{1, 64, 14, 14, 128, 3, 3, 8, 8, 2, 1},
                                            std::vector<int64_t>{1, 32, 7, 7, 128, 3, 3, 8, 8, 1, 1}}) {
    Checker ch(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", shape).outputs, kAvx2));
    const std::vector<Candidate> seeds = ch.space.seeds();
    ASSERT_FALSE(seeds.empty());
    const Candidate &pairs = seeds[0];
    SCOPED_TRACE(pairs.key());
    EXPECT_EQ(param(pairs, ".lanes_last"), 1);
    EXPECT_EQ(param(pairs, ".tile.k.3"), 4);
    EXPECT_EQ(param(pairs, ".tile.h.3"), 2);
    EXPECT_EQ(param(pairs, ".tile.h.2"), 4);
    EXPECT_EQ(param(pairs, ".tile.w.3"), 1);
    EXPECT_TRUE(lanes_after_taps(ch.space.steps(pairs), "h_i_i_i"));
    ch.check(pairs, "4 blocks x 2 rows, lanes last");
  }
  SearchSpace few(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 128, 7, 7, 32, 3, 3, 8, 8, 1, 1}).outputs, kAvx2));
  for (const Candidate &c : few.seeds()) EXPECT_NE(param(c, ".lanes_last"), 1) << c.key();
  // AVX-512 keeps its 2 blocks x 7 columns.
  SearchSpace avx512(make_task("conv2d_nchwc", ops::build_op("conv2d_nchwc", {1, 256, 28, 28, 256, 3, 3, 16, 16, 2, 1}).outputs, kAvx512));
  for (const Candidate &c : avx512.seeds()) EXPECT_NE(param(c, ".lanes_last"), 1) << c.key();
}

// A GEMV (one row, as an LSTM cell's recurrence): too few rows for the GEMM
// model, its spatial-vector seed puts the reduction outermost (k.1 = 1: the
// whole of k in the outer reduce level) and a task's column vectors inside
// it (S2), so that the weight streams row by row; a short reduction instead
// puts 4 column vectors side by side in the register block.
TEST(SearchSpace, GemvSeedStreamsTheWeight) {
  Checker ch(make_task("gemv", gemm(1, 256, 96)));
  std::vector<Candidate> seeds = ch.space.seeds();
  ASSERT_FALSE(seeds.empty());
  const Candidate &c = seeds.front();
  EXPECT_EQ(c.params.at("C.tile.j.3"), 16) << c.key();
  EXPECT_EQ(c.params.at("C.tile.j.1"), 1) << c.key();
  EXPECT_EQ(c.params.at("C.tile.j.2") * 16 * std::max(1, ch.task.threads), 256) << c.key();
  EXPECT_EQ(c.params.at("C.tile.k.1"), 1) << c.key();
  for (const Candidate &s : seeds) ch.check(s, "seed");

  Checker short_k(make_task("gemv_k32", gemm(1, 256, 32)));
  std::vector<Candidate> ss = short_k.space.seeds();
  ASSERT_FALSE(ss.empty());
  EXPECT_EQ(ss.front().params.at("C.tile.j.3"), 64) << ss.front().key();
  for (const Candidate &s : ss) short_k.check(s, "seed");
}

// SiLU after a depthwise conv (x * sigmoid(x)): the sigmoid, not strictly
// inlineable for its exp, is inlined into the fused epilogue, so the conv is
// computed at the epilogue's tiles instead of at root.
TEST(SearchSpace, EpilogueWithExpensiveOpIsFused) {
  Tensor data = placeholder({1, 24, 15, 13}, float32(), "data");
  Tensor weight = placeholder({24, 3, 3}, float32(), "weight");
  IterVar ry = reduce_axis(3, "ry"), rx = reduce_axis(3, "rx");
  Tensor dw = compute({1, 24, 13, 11},
                      [&](const std::vector<Var> &i) {
                        return sum(data(i[0], i[1], Expr(i[2]) + ry.var, Expr(i[3]) + rx.var) * weight(i[1], ry.var, rx.var),
                                   {ry, rx});
                      },
                      "dw", "depthwise_conv2d", {"n", "c", "h", "w"});
  Tensor sig = compute({1, 24, 13, 11},
                       [&](const std::vector<Var> &i) { return Expr(1.0f) / (Expr(1.0f) + exp(Expr(0.0f) - dw(i[0], i[1], i[2], i[3]))); },
                       "sig", "elemwise", {"n", "c", "h", "w"});
  Tensor silu = compute({1, 24, 13, 11},
                        [&](const std::vector<Var> &i) { return dw(i[0], i[1], i[2], i[3]) * sig(i[0], i[1], i[2], i[3]); },
                        "silu", "elemwise", {"n", "c", "h", "w"});
  Checker ch(make_task("dw_silu", {silu}));
  print_sketches(ch.space, "depthwise + silu");
  ASSERT_GE(ch.space.num_sketches(), 1);
  EXPECT_NE(ch.space.sketch_description(0).find("fused consumer silu"), std::string::npos) << ch.space.sketch_description(0);
  std::vector<Candidate> seeds = ch.space.seeds();
  ASSERT_FALSE(seeds.empty());
  Schedule first = ch.space.schedule(seeds.front());
  EXPECT_EQ(first.stage("dw").attach.kind, Attach::At) << "the conv is computed at the epilogue's tile";
  for (const Candidate &c : seeds) ch.check(c, "seed");
  ch.run(kSamples / 2, kMutations / 2, 0, 5);
}

// Every stage of a seed runs in parallel: the tiled stage over its outer
// tiles, the elementwise ones over their outer loops (GEMM with a batch axis
// of 1 and rows in one tile of 6-row blocks: the column tiles in parallel).
TEST(SearchSpace, AnalyticalSeedsRunInParallel) {
  Tensor A = placeholder({1, 128, 96}, float32(), "A");
  Tensor B = placeholder({96, 256}, float32(), "B");
  IterVar k = reduce_axis(96, "k");
  Tensor C = compute({1, 128, 256}, [&](const std::vector<Var> &i) { return sum(A(i[0], i[1], k.var) * B(k.var, i[2]), {k}); },
                     "C", "matmul", {"b", "i", "j"});
  Tensor E = compute({1, 128, 256}, [&](const std::vector<Var> &i) { return exp(C(i[0], i[1], i[2])) * C(i[0], i[1], i[2]); },
                     "E", "elemwise", {"b", "i", "j"});
  Checker ch(make_task("bmm_exp", {E}));
  std::vector<Candidate> seeds = ch.space.seeds();
  ASSERT_FALSE(seeds.empty());
  for (const Candidate &c : seeds) {
    Schedule s = ch.space.schedule(c);
    for (const auto &st : s.stages()) {
      if (st.attach.kind != Attach::Root || st.kind != StageInfo::Compute) continue;
      EXPECT_GE(parallel_extent(st), 2) << st.name << " of " << c.key() << ": " << trace_to_json(s);
    }
    ch.check(c, "seed");
  }
}

// The last ".rf" stage of s, or null.
const StageInfo *rf_stage(const Schedule &s) {
  const StageInfo *rf = nullptr;
  for (const auto &st : s.stages())
    if (st.name.size() > 3 && st.name.compare(st.name.size() - 3, 3, ".rf") == 0) rf = &st;
  return rf;
}

// Rows first (rule_multi_level_tiling.cc): a blocked 1x1 conv of 12 rows at 2
// threads (its 4 channel blocks in 2 outer tiles) splits by rows with 2 outer
// row tiles of 6 (the threads share them evenly), by channel blocks with 3
// tiles of 4 (fewer than 4 per thread, and odd).
TEST(SearchSpace, BlockedConvSplitsByRowsWhereTheThreadsShareTheRowTiles) {
  Checker ch(make_task("conv1x1", ops::build_op("conv2d_nchwc", {1, 64, 12, 12, 64, 1, 1, 16, 16}).outputs, kAvx512, 2));
  ASSERT_FALSE(ch.space.seeds().empty());
  const std::string out = ch.task.outputs[0].name();
  for (auto [row_tile, rows_first] : std::vector<std::pair<int64_t, bool>>{{6, true}, {4, false}}) {
    SCOPED_TRACE("row tile " + std::to_string(row_tile));
    Candidate c = ch.space.seeds().front();
    int set = 0;  // rows in tiles of row_tile, the 4 channel blocks in 2 outer tiles of 2
    for (auto &[name, v] : c.params) {
      const bool last = name.compare(name.size() - 2, 2, ".3") == 0;
      if (name.find(".tile.h.") != std::string::npos) v = last ? row_tile : 1, set++;
      if (name.find(".tile.k.") != std::string::npos) v = last ? 2 : 1, set++;
    }
    ASSERT_EQ(set, 6) << c.key();
    Schedule s = ch.space.schedule(c);
    const std::string root = parallel_root(s);
    const std::vector<std::string> &axes = s.stage(out).spatial_axes;
    ASSERT_EQ(axes.size(), 5u);
    EXPECT_EQ(root, rows_first ? axes[2] : axes[1]) << trace_to_json(s);
    ch.check(c, "row tile");
  }
}

// The innermost loops of an accumulators-form S.rf: a reduce loop, then `a` accumulators unrolled, then the
// vectorized lanes (16).
void expect_unrolled_accumulators(const StageInfo &rf, int64_t a, const std::string &trace) {
  const std::vector<LeafAxis> &loops = rf.leaves;
  ASSERT_GE(loops.size(), 3u) << trace;
  EXPECT_EQ(loops.back().annotation, "vectorize") << trace;
  EXPECT_EQ(loops.back().extent, 16) << trace;
  const LeafAxis &accumulators = loops[loops.size() - 2];
  EXPECT_FALSE(accumulators.is_reduce) << trace;
  EXPECT_EQ(accumulators.annotation, "unroll") << trace;
  EXPECT_EQ(accumulators.extent, a) << trace;
  EXPECT_TRUE(loops[loops.size() - 3].is_reduce) << trace;
}

// Whether sp has rfactor's accumulators form (rule_rfactor.cc).
bool has_accumulators_form(const SearchSpace &sp) {
  for (int i = 0; i < sp.num_sketches(); i++)
    if (sp.sketch_description(i).find("accumulators") != std::string::npos) return true;
  return false;
}

// A global pool over NCHW16c (many points of 16 contiguous lanes, a long
// reduction without reuse) gets rfactor's accumulators form: the seed sums
// each point's window into a partial vectors (a = 4 where it divides W, else
// 2), their loop unrolled inside the reduce loops and the lanes vectorized,
// at the mean's point inside its parallel loop (7 rows: too few to split by
// rows among 2 threads). A 7x7 window (7 has no such divisor) and a 7x14 one
// (98 points, under the form's shortest reduction) get no such sketch.
TEST(SearchSpace, BlockedGlobalPoolSeedKeepsIndependentAccumulators) {
  for (auto [w, a] : std::vector<std::pair<int64_t, int64_t>>{{20, 4}, {22, 2}}) {
    SCOPED_TRACE("W = " + std::to_string(w));
    Checker ch(make_task("gap", ops::build_op("global_avg_pool2d_nchwc", {1, 5, 7, w, 16}).outputs, kAvx512, 2));
    print_sketches(ch.space, "blocked global pool");
    EXPECT_TRUE(has_accumulators_form(ch.space));
    ASSERT_FALSE(ch.space.seeds().empty());
    const Candidate seed = ch.space.seeds().front();
    Schedule s = ch.space.schedule(seed);
    const std::string trace = trace_to_json(s);
    const std::string out = ch.task.outputs[0].name();
    const StageInfo *rf = rf_stage(s);
    ASSERT_NE(rf, nullptr) << trace;
    expect_unrolled_accumulators(*rf, a, trace);
    EXPECT_EQ(rf->attach.kind, Attach::At) << trace;
    const StageInfo &sum = s.stage(rf->attach.stage);
    EXPECT_EQ(sum.attach.kind, Attach::At) << trace;
    EXPECT_EQ(sum.attach.stage, out) << trace;
    EXPECT_GE(parallel_extent(s.stage(out)), 2) << trace;
    ch.check(seed, "seed");
    ch.run(12, 6, 6, 44);
  }
  for (int64_t w : {7, 14}) {
    SearchSpace sp(make_task("gap", ops::build_op("global_avg_pool2d_nchwc", {1, 5, 7, w, 16}).outputs, kAvx512, 2));
    EXPECT_FALSE(has_accumulators_form(sp)) << "7x" << w;
  }
}

// With kRowsPerThread (4) rows per thread, the pool's seed splits by rows
// instead: its partial sums S.rf[pieces, points, lanes] at root, parallel in
// one task per thread, each task's a = 4 pieces of contiguous rows unrolled
// inside the reduce loops (14 rows: 7 pieces of 2, the last task's 3 guarded),
// the sum and the mean serial. 16 rows split among 4 threads, not 8.
TEST(SearchSpace, BlockedGlobalPoolSeedSplitsRowsAmongThreads) {
  for (int64_t h : {16, 14}) {
    SCOPED_TRACE("H = " + std::to_string(h));
    Checker ch(make_task("gap", ops::build_op("global_avg_pool2d_nchwc", {1, 3, h, 20, 16}).outputs, kAvx512, 2));
    EXPECT_TRUE(has_accumulators_form(ch.space));
    ASSERT_FALSE(ch.space.seeds().empty());
    const Candidate seed = ch.space.seeds().front();
    Schedule s = ch.space.schedule(seed);
    const std::string trace = trace_to_json(s);
    const StageInfo *rf = rf_stage(s);
    ASSERT_NE(rf, nullptr) << trace;
    EXPECT_EQ(rf->attach.kind, Attach::Root) << trace;
    expect_unrolled_accumulators(*rf, 4, trace);
    EXPECT_EQ(rf->leaves.front().annotation, "parallel") << trace;
    EXPECT_EQ(rf->leaves.front().extent, 2) << trace;
    for (const auto &st : s.stages())
      if (&st != rf) EXPECT_EQ(parallel_extent(st), 0) << st.name << ": " << trace;
    ch.check(seed, "seed");
    ch.run(12, 6, 6, 45);
  }
  auto rows_choice = [](int threads) {
    SearchSpace sp(make_task("gap", ops::build_op("global_avg_pool2d_nchwc", {1, 3, 16, 20, 16}).outputs, kAvx512,
                             threads));
    for (const Candidate &c : sp.seeds())
      for (const auto &[name, v] : c.params)
        if (name.size() > 8 && name.compare(name.size() - 8, 8, ".rf.rows") == 0) return v;
    return int64_t{-1};
  };
  EXPECT_EQ(rows_choice(4), 1);
  EXPECT_EQ(rows_choice(8), -1);
}

// A simple stage's seed runs in parallel over its fewest outer loops that give
// 16 tasks per thread (8 to 16 once split into whole tasks). The tiles its op names in kUnrollTilesAttr are
// unrolled just outside the vector: all 16 points e of an F(2x2) input
// transform [16, 4, 784, 16] (e x c x p x cb), so that B^T's taps fold.
TEST(SearchSpace, SimpleSeedRunsInParallelAndUnrollsTheNamedTiles) {
  for (int threads : {1, 2, 8}) {
    Checker ch(make_task("winograd_input", ops::build_op("winograd_input_nchwc", {1, 64, 56, 56, 16, 2, 1}).outputs,
                         kAvx512, threads));
    ASSERT_FALSE(ch.space.seeds().empty());
    const Candidate seed = ch.space.seeds().front();
    Schedule s = ch.space.schedule(seed);
    const std::string out = ch.task.outputs[0].name();
    const std::vector<LeafAxis> loops = s.stage(out).leaves;
    const std::string trace = trace_to_json(s);
    EXPECT_GE(parallel_extent(s.stage(out)), 8 * threads) << threads << " threads: " << trace;
    EXPECT_LE(parallel_extent(s.stage(out)), 16 * threads) << threads << " threads: " << trace;
    ASSERT_GE(loops.size(), 2u) << trace;
    EXPECT_EQ(loops[loops.size() - 2].name, "e") << trace;
    EXPECT_EQ(loops[loops.size() - 2].annotation, "unroll") << trace;
    EXPECT_EQ(loops.back().annotation, "vectorize") << trace;
    ch.check(seed, "seed");
  }
}

// An output transform's tiles of m x m outputs, under a fused relu: h and w
// are split by m (guarded where m does not divide 14) and both inner loops
// unrolled, so that the tile position h % m, w % m folds.
TEST(SearchSpace, FusedEpilogueUnrollsTheTilesOfItsAnchor) {
  for (int m : {2, 4}) {
    const int64_t tiles = (14 + m - 1) / m;
    Tensor product = placeholder({(m + 2) * (m + 2), 4, tiles * tiles, 8}, float32(), "M");
    Tensor y = ops::relu(ops::winograd_output_nchwc(product, m, 1, 14, 14, "winograd_output"), "relu");
    Checker ch(make_task("winograd_output_relu", {y}, kAvx2, 2));
    ASSERT_FALSE(ch.space.seeds().empty());
    const Candidate seed = ch.space.seeds().front();
    Schedule s = ch.space.schedule(seed);
    const std::vector<LeafAxis> loops = s.stage(y.name()).leaves;
    const std::string trace = trace_to_json(s);
    ASSERT_GE(loops.size(), 3u) << trace;
    EXPECT_EQ(loops.back().annotation, "vectorize") << trace;
    EXPECT_GE(parallel_extent(s.stage(y.name())), 2) << trace;
    // The two loops inside are the tiles of m, and no other loop is unrolled.
    for (size_t i = 0; i < loops.size(); i++) {
      const bool tile = i + 3 == loops.size() || i + 2 == loops.size();
      EXPECT_EQ(loops[i].annotation == "unroll", tile) << loops[i].name << ": " << trace;
      if (tile) EXPECT_EQ(loops[i].extent, m) << loops[i].name << ": " << trace;
    }
    ch.check(seed, "seed");
  }
}

// A tile attribute that names no axis of its stage is the op's defect: the
// search space refuses the task at once, naming the attribute and the entry.
TEST(SearchSpace, UnrollTilesOfNoAxisIsRefused) {
  Tensor x = placeholder({4, 16}, float32(), "x");
  Tensor y = compute({4, 16}, [&](const std::vector<Var> &i) { return x(i[0], i[1]) * make_float(2.0, float32()); }, "y",
                     "elemwise", {"i", "j"});
  y.node()->attrs[kUnrollTilesAttr] = "q:4";
  try {
    SearchSpace space(make_task("bad_tiles", {y}, kAvx2));
    FAIL() << "accepted unroll_tiles 'q:4' on axes i, j";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("'q:4'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(kUnrollTilesAttr), std::string::npos) << e.what();
  }
}

// A mutation reshapes the register block in one step: 4x64 becomes 8x32
// (or 2x128 is refused, past the vector limit) with the block size and each
// axis' S2 x S3 tile kept, so a search is not stuck behind spilling blocks.
TEST(SearchSpace, MutationReshapesRegisterBlock) {
  SearchSpace sp(make_task("gemm2048", gemm(2048, 2048, 2048)));
  std::mt19937_64 rng(5);
  Candidate c = sp.sample(rng);
  auto tile = [&](const Candidate &x, const std::string &axis) {
    std::vector<int64_t> l;
    for (int k = 1; k <= 3; k++) l.push_back(x.params.at("C.tile." + axis + "." + std::to_string(k)));
    return l;
  };
  auto set = [&](const std::string &axis, std::vector<int64_t> l) {
    for (int k = 1; k <= 3; k++) c.params["C.tile." + axis + "." + std::to_string(k)] = l[k - 1];
  };
  set("i", {2, 4, 4});
  set("j", {1, 2, 64});
  ASSERT_EQ(sp.family(c).substr(0, sp.family(c).find('|')), std::to_string(c.sketch) + ":4x64x");
  int reshaped = 0;
  for (int n = 0; n < 400; n++) {
    Candidate m = sp.mutate(c, rng);
    std::vector<int64_t> i = tile(m, "i"), j = tile(m, "j");
    if (i[2] == 8 && j[2] == 32) {
      reshaped++;
      EXPECT_EQ(i[1] * i[2], 16) << m.key();
      EXPECT_EQ(j[1] * j[2], 128) << m.key();
      EXPECT_EQ(i[0], 2) << m.key();
      EXPECT_EQ(j[0], 1) << m.key();
    }
    EXPECT_NE(j[2], 128) << "past the 4 vectors a block row may hold: " << m.key();
  }
  // A quarter of mutations try a reshape; about half of those move j's factor to i.
  EXPECT_GT(reshaped, 20);
}

// A mutation fills the accumulator registers: a 4x64 block of GEMM 1024
// becomes 6x64 (24 vectors) with i's S1 and, rounded up, its S2 x S3 span
// kept, and the outer tiles waste fewer than 6 rows each. Such children are
// correct kernels (checked on GEMM 64x64x32).
TEST(SearchSpace, MutationFillsTheRegisters) {
  SearchSpace sp(avx512_task("gemm1024", gemm(1024, 1024, 1024)));
  std::mt19937_64 rng(9);
  Candidate c = sp.sample(rng);
  for (auto [axis, l] : std::map<std::string, std::vector<int64_t>>{{"i", {2, 8, 4}}, {"j", {1, 2, 64}}})
    for (int k = 1; k <= 3; k++) c.params["C.tile." + axis + "." + std::to_string(k)] = l[k - 1];
  int filled = 0;
  for (int n = 0; n < 400; n++) {
    Candidate m = sp.mutate(c, rng);
    if (m.params.at("C.tile.i.3") != 6) continue;
    filled++;
    EXPECT_EQ(m.params.at("C.tile.i.1"), 2) << m.key();
    EXPECT_EQ(m.params.at("C.tile.i.2"), 6) << "ceil(32 / 6) blocks keep the 32-row span: " << m.key();
    EXPECT_EQ(sp.register_block(m), sp.max_register_block()) << m.key();
    int64_t tile = 2 * 6 * 6, tiles = (1024 + tile - 1) / tile;
    EXPECT_LT(tiles * tile - 1024, tiles * 6) << m.key();
  }
  EXPECT_GT(filled, 20) << "one mutation in eight fills the registers";

  Checker ch(make_task("gemm_64x64x32", gemm(64, 64, 32)));
  std::mt19937_64 rng2(3);
  int checked = 0;
  for (int i = 0; i < 400 && checked < 4; i++) {
    Candidate parent = ch.space.sample(rng2);
    if (parent.params.at("C.tile.i.3") % 3 == 0) continue;
    Candidate m = ch.space.mutate(parent, rng2);
    if (m.params.at("C.tile.i.3") % 3 != 0) continue;
    ch.check(m, "filled register rows");
    if (::testing::Test::HasFailure()) return;
    checked++;
  }
  EXPECT_EQ(checked, 4);
}

// On a channel-vectorized conv block the fill counts the channel axis as the
// lanes it holds (32 x 4 columns: 3 rows, not the 12 that its drawn length 2
// would allow), so the filled block stays within the bound.
TEST(SearchSpace, MutationFillsAChannelVectorBlock) {
  SearchSpace sp(avx512_task("conv_vc", conv_bias_relu(1, 16, 28, 28, 64, 3, 1, 1)));
  std::mt19937_64 rng(4);
  Candidate c = sp.sample(rng);
  for (int t = 0; t < 200 && !c.params.count("conv.vec_channel"); t++) c = sp.sample(rng);
  ASSERT_TRUE(c.params.count("conv.vec_channel")) << "no sketch with a channel-vectorizable conv";
  c.params["conv.vec_channel"] = 1;
  for (auto [axis, l] : std::map<std::string, std::vector<int64_t>>{{"k", {1, 1, 2}}, {"oh", {1, 4, 2}}, {"ow", {1, 7, 4}}})
    for (int k = 1; k <= 3; k++) c.params["conv.tile." + axis + "." + std::to_string(k)] = l[k - 1];
  ASSERT_EQ(sp.register_block(c), 32 * 2 * 4);
  int filled = 0;
  for (int n = 0; n < 400; n++) {
    Candidate m = sp.mutate(c, rng);
    if (m.params.at("conv.tile.oh.3") % 3 != 0) continue;
    filled++;
    EXPECT_EQ(m.params.at("conv.tile.oh.3"), 3) << m.key();
    EXPECT_EQ(m.params.at("conv.tile.oh.2"), 3) << "ceil(8 / 3) blocks keep the 8-row span: " << m.key();
    EXPECT_EQ(sp.register_block(m), sp.max_register_block()) << m.key();
  }
  EXPECT_GT(filled, 15);
}

// A conv block of 3 rows (a tail on 28 rows) under one tile of all 64
// output channels: the loops before the tailed row loop have extent 1, so
// the row loop itself runs in parallel (fused with them it would be one
// task); the kernel still equals the reference.
TEST(SearchSpace, TailedRowLoopRunsInParallel) {
  Checker ch(make_task("conv_vc", conv_bias_relu(1, 16, 28, 28, 64, 3, 1, 1)));
  std::mt19937_64 rng(6);
  int checked = 0;
  for (int i = 0; i < 200 && checked < 3; i++) {
    Candidate c = ch.space.sample(rng);
    if (!c.params.count("conv.vec_channel") || c.params.count("conv.at_level") == 0) continue;
    c.params["conv.vec_channel"] = 1;
    c.params["conv.parallel"] = 4;  // fuse all outer loops it can
    for (auto [axis, l] : std::map<std::string, std::vector<int64_t>>{{"k", {1, 1, 4}}, {"oh", {1, 3, 3}}, {"ow", {1, 7, 2}}})
      for (int k = 1; k <= 3; k++) c.params["conv.tile." + axis + "." + std::to_string(k)] = l[k - 1];
    ASSERT_EQ(ch.space.register_block(c), 64 * 3 * 2);
    Schedule s = ch.space.schedule(c);
    int parallel = 0;
    for (const auto &st : s.stages())
      for (const auto &leaf : st.leaves)
        if (leaf.annotation == "parallel" && st.name != "pad" && st.name != "weight.cache") {
          parallel++;
          EXPECT_EQ(leaf.extent, 4) << "ceil(28 / 9) row tiles: " << trace_to_json(s);
        }
    EXPECT_EQ(parallel, 1) << trace_to_json(s);
    ch.check(c, "tailed rows in parallel");
    if (::testing::Test::HasFailure()) return;
    checked++;
  }
  EXPECT_EQ(checked, 3);
}

// The family of a candidate is its sketch, register block shape and
// accumulator level; outer tile sizes and annotations do not change it.
TEST(SearchSpace, FamilyIsSketchBlockAndAccumulatorLevel) {
  SearchSpace sp(avx512_task("gemm1024", gemm(1024, 1024, 1024)));
  std::mt19937_64 rng(7);
  Candidate c = sp.sample(rng);
  for (int t = 0; t < 200 && !c.params.count("C.at_level"); t++) c = sp.sample(rng);
  ASSERT_TRUE(c.params.count("C.at_level")) << "no sketch with a cache_write accumulator";
  Candidate other_level = c, other_outer = c, other_unroll = c;
  other_level.params["C.at_level"] = 3 - c.params["C.at_level"];
  other_outer.params["C.tile.i.1"] *= 2;
  other_unroll.params["C.max_unroll"] = c.params["C.max_unroll"] == 4 ? 16 : 4;
  EXPECT_NE(sp.family(other_level), sp.family(c));
  EXPECT_EQ(sp.family(other_outer), sp.family(c));
  EXPECT_EQ(sp.family(other_unroll), sp.family(c));
  EXPECT_NE(sp.family(c).find("C.at_level="), std::string::npos) << sp.family(c);
}

// With channel vectorization the channel axis holds 16, 32 or 64 lanes
// (channel_vectors of its tile parameter): the register block bound and the
// family count those.
TEST(SearchSpace, ChannelVectorBlockCountsWholeVectors) {
  SearchSpace sp(avx512_task("conv_vc", conv_bias_relu(1, 16, 28, 28, 64, 3, 1, 1)));
  std::mt19937_64 rng(11);
  int channel = 0;
  for (int i = 0; i < 300; i++) {
    Candidate c = i % 2 ? sp.sample(rng) : sp.mutate(sp.sample(rng), rng);
    EXPECT_LE(sp.register_block(c), sp.max_register_block()) << c.key();
    auto vc = c.params.find("conv.vec_channel");
    if (vc == c.params.end() || vc->second != 1) continue;
    channel++;
    Candidate one = c, other_one = c, two = c;
    for (Candidate *x : {&one, &other_one, &two}) x->params["conv.tile.k.1"] = x->params["conv.tile.k.2"] = 1;
    one.params["conv.tile.k.3"] = 1;
    other_one.params["conv.tile.k.3"] = 8;  // not a vector count: one vector
    two.params["conv.tile.k.3"] = 2;
    EXPECT_EQ(sp.register_block(other_one), sp.register_block(one)) << c.key();
    EXPECT_EQ(sp.family(other_one), sp.family(one)) << c.key();
    EXPECT_EQ(sp.register_block(two), 2 * sp.register_block(one)) << c.key();
    EXPECT_NE(sp.family(two), sp.family(one)) << c.key();
    EXPECT_EQ(sp.register_block(c) % 16, 0) << c.key();
  }
  EXPECT_GT(channel, 50);
}

// Every sketch of GEMM 1024^3 gives loops that cover its iteration space: the
// reduce loops of each stage multiply to at least its reduction's extent (k =
// 1024), and the spatial loops of each stage computed at root to at least its
// shape (1024 x 1024 for C); tile tails add at most 1/16. The schedule lowers.
TEST(SearchSpace, Gemm1024LoopsCoverTheIterationSpace) {
  const int64_t n = 1024;
  SearchSpace sp(make_task("gemm_1024", gemm(n, n, n)));
  print_sketches(sp, "gemm 1024^3");
  std::mt19937_64 rng(2024);
  for (int s = 0; s < sp.num_sketches(); s++) {
    Candidate c = sp.sample(rng);
    for (int t = 0; t < 200 && c.sketch != s; t++) c = sp.sample(rng);
    ASSERT_EQ(c.sketch, s) << "no sample of sketch " << s << " in 200";
    SCOPED_TRACE(c.key());
    const Schedule sched = sp.schedule(c);
    for (const auto &st : sched.stages()) {
      SCOPED_TRACE(st.name);
      int64_t spatial = 1, reduce = 1, want_reduce = 1, want_spatial = 1;
      for (const auto &l : st.leaves) (l.is_reduce ? reduce : spatial) *= l.extent;
      for (const auto &r : st.reduce_axes) want_reduce *= r.extent;
      for (int64_t e : st.shape) want_spatial *= e;
      EXPECT_GE(reduce, want_reduce);
      EXPECT_LE(reduce, want_reduce + want_reduce / 16);
      if (st.attach.kind != Attach::Root) continue;
      EXPECT_GE(spatial, want_spatial);
      EXPECT_LE(spatial, want_spatial + want_spatial / 16);
    }
    EXPECT_NO_THROW(Kernel::build(sched));
  }
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
