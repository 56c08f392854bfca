// Lesson 2: a hand-scheduled matrix product.
//
// C[i, j] = sum_k A[i, k] B[k, j] is three loops and two lines of compute. A
// fast CPU GEMM is the same compute with a schedule that feeds the vector
// units from registers and caches (Goto and van de Geijn, "Anatomy of
// High-Performance Matrix Multiplication", 2008; TVM's "How to optimize GEMM
// on CPU"). This lesson adds the schedule's ideas one at a time and prints
// GFLOP/s after each:
//
//   blocking      tile C into register blocks of 8 rows x 32 columns and run
//                 k outside the block, so every loaded B vector is used 8
//                 times; the 32 columns are 2 vectors of 16 lanes, unrolled.
//   write cache   cache_write gives the block an accumulator stage, C.local,
//                 computed at each block: it lives in registers while k
//                 runs, and C receives each element once.
//   packing       cache_read copies B, and pack_layout stores the copy in
//                 panels of 32 columns, so the block reads k rows of 32
//                 contiguous floats instead of rows 2 KiB apart.
//   parallel      outer tiles of 64 x 128 are fused into one loop and run in
//                 parallel on every core.
//
// Every version is checked against a plain loop (in double); speeds are
// printed, never asserted (they depend on the machine and what else runs on
// it). At the end the same product runs in oneDNN, the library the bench/
// baselines link, for comparison. schedules/hand_schedules.cc holds the
// benchmark's version of this schedule; lesson 3 lets the tuner find one.
//
//   bazel run //examples/tutorial:lesson_02_gemm
#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "base/errors.h"
#include "codegen/kernel.h"
#include "schedule/schedule.h"
#include "te/tensor.h"

using namespace tetune;

namespace {

constexpr int64_t kN = 512;                      // M = N = K
constexpr int64_t kRows = 8, kCols = 32;         // register block of C
constexpr int64_t kTileRows = 64, kTileCols = 128;  // parallel tile of C (multiples of the block)
constexpr int64_t kLanes = 16;                   // vector lanes (AVX-512 float; narrower CPUs split them)

void check(bool ok, const std::string &what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::exit(1);
}

struct Options {
  bool write_cache = false, pack = false, parallel = false;
};

// The GEMM schedule with the ideas of the lesson switched on by `o`.
Schedule gemm_schedule(const Tensor &B, const Tensor &C, const Options &o) {
  Schedule s({C});
  // cache_write and pack_layout must come before other steps on their stages.
  std::string L = o.write_cache ? s.cache_write(C) : s.stage_of(C);
  // C's loops: parallel tiles, then register blocks inside them.
  auto t = s.tile(C, "i", "j", kTileRows, kTileCols);  // i_o, j_o, i_i, j_i
  auto [bi, ri] = s.split(C, t[2], kRows);
  auto [bj, rj] = s.split(C, t[3], kCols);
  if (o.parallel) s.parallel(C, s.fuse(C, t[0], t[1]));
  if (o.write_cache) {
    // C only copies the block out of C.local: vectorize the copy ...
    s.reorder(C, {bi, bj, ri, rj});
    s.vectorize(C, s.split(C, rj, kLanes).second);
    // ... and compute C.local, whose own loops are i, j, k, once per block. Its
    // i and j split by the block leave outer loops of one iteration there.
    s.compute_at(L, s.stage_of(C), bj);
    auto [li_o, li] = s.split(L, "i", kRows);
    auto [lj_o, lj] = s.split(L, "j", kCols);
    auto [lv_o, lv] = s.split(L, lj, kLanes);
    s.reorder(L, {li_o, lj_o, "k", li, lv_o, lv});
    s.unroll(L, li);
    s.unroll(L, lv_o);
    s.vectorize(L, lv);
  } else {
    // Without a write cache the block accumulates in C itself, k outside it.
    auto [v_o, v] = s.split(C, rj, kLanes);
    s.reorder(C, {bi, bj, "k", ri, v_o, v});
    s.unroll(C, ri);
    s.unroll(C, v_o);
    s.vectorize(C, v);
  }
  if (o.pack) {
    // B read through a copy stored in panels of kCols columns: [N / 32, K, 32].
    std::string P = s.cache_read(B, {L});
    auto [panel, col] = s.pack_layout(P, "ax1", kCols);
    if (o.parallel) s.parallel(P, panel);
    s.vectorize(P, s.split(P, col, kLanes).second);
  }
  return s;
}

// C = A B in double, the reference.
std::vector<double> reference(const NDArray &a, const NDArray &b) {
  std::vector<double> c(kN * kN, 0.0);
  const float *A = a.data<float>(), *B = b.data<float>();
  for (int64_t i = 0; i < kN; i++)
    for (int64_t k = 0; k < kN; k++)
      for (int64_t j = 0; j < kN; j++) c[i * kN + j] += static_cast<double>(A[i * kN + k]) * B[k * kN + j];
  return c;
}

double gflops(double ms) { return 2.0 * kN * kN * kN / (ms * 1e6); }

// Builds, checks against the reference and times one schedule; returns its GFLOP/s.
double run(const std::string &label, const Schedule &s, const std::vector<NDArray> &in, const std::vector<double> &ref,
           int repeat) {
  Kernel k = Kernel::build(s);
  std::vector<NDArray> out = k.run(in);
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < kN * kN; i++) {
    worst = std::max(worst, std::fabs(out[0].data<float>()[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  double ms = k.median_ms(in, out, 1, repeat);
  std::printf("%-34s %9.3f ms %8.1f GFLOP/s   error %.1e\n", label.c_str(), ms, gflops(ms), worst / scale);
  check(worst / scale < 1e-5, label + ": the product differs from the reference");
  return gflops(ms);
}

// oneDNN's sgemm on the same matrices: median of 20 timed calls after 3 warm-up calls
// (its default threads: every core).
double onednn_gflops(const NDArray &a, const NDArray &b, const std::vector<double> &ref) {
  std::vector<float> c(kN * kN);
  auto call = [&] {
    return dnnl_sgemm('N', 'N', kN, kN, kN, 1.0f, a.data<float>(), kN, b.data<float>(), kN, 0.0f, c.data(), kN);
  };
  check(call() == dnnl_success, "dnnl_sgemm failed");
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < kN * kN; i++) {
    worst = std::max(worst, std::fabs(c[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  check(worst / scale < 1e-5, "oneDNN's product differs from the reference");
  for (int r = 0; r < 2; r++) call();
  std::vector<double> ms;
  for (int r = 0; r < 20; r++) {
    auto t0 = std::chrono::steady_clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return gflops(ms[ms.size() / 2]);
}

}  // namespace

int main() {
  // Kernels run on every core, as oneDNN does by default.
  set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  Tensor A = placeholder({kN, kN}, float32(), "A");
  Tensor B = placeholder({kN, kN}, float32(), "B");
  IterVar k = reduce_axis(kN, "k");
  Tensor C = compute({kN, kN}, [&](const std::vector<Var> &v) { return sum(A(v[0], k) * B(k, v[1]), {k}); }, "C", "",
                     {"i", "j"});

  std::vector<NDArray> in = {NDArray::random({kN, kN}, float32(), 1), NDArray::random({kN, kN}, float32(), 2)};
  std::vector<double> ref = reference(in[0], in[1]);
  std::printf("C[%lld x %lld] = A B, K = %lld, %d threads\n", static_cast<long long>(kN), static_cast<long long>(kN),
              static_cast<long long>(kN), num_threads());

  // oneDNN first, before tetune's kernels start their worker threads (two thread
  // pools in one process slow each other down).
  double library = onednn_gflops(in[0], in[1], ref);

  double naive = run("default schedule (i, j, k loops)", Schedule({C}), in, ref, 2);
  run("+ blocking, vectorize, unroll", gemm_schedule(B, C, {}), in, ref, 10);
  run("+ write cache (C.local)", gemm_schedule(B, C, {true, false, false}), in, ref, 10);
  run("+ packed B panels", gemm_schedule(B, C, {true, true, false}), in, ref, 10);
  double best = run("+ parallel tiles", gemm_schedule(B, C, {true, true, true}), in, ref, 10);
  std::printf("%-34s %9s    %8.1f GFLOP/s\n", "oneDNN sgemm", "", library);
  std::printf("hand schedule: %.0fx the default schedule, %.2fx oneDNN's speed\n", best / naive, best / library);
  std::printf("\nlesson 2 OK\n");
  return 0;
}
