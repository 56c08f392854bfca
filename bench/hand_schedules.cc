#include "bench/hand_schedules.h"

namespace tetune {
namespace bench {

Schedule hand_gemm_schedule(const std::vector<Tensor> &outputs, const GemmTiling &t) {
  Schedule s(outputs);
  const std::string C = s.stage_of(outputs[0]);
  std::string L = s.cache_write(C);
  // Output: parallel over (i tile, j tile), then register blocks.
  auto [io, ii] = s.split(C, "i", t.tile_i);
  auto [jo, ji] = s.split(C, "j", t.tile_j);
  s.reorder(C, {io, jo, ii, ji});
  auto [iio, iii] = s.split(C, ii, t.reg_i);
  auto [jio, jii] = s.split(C, ji, t.reg_j);
  s.reorder(C, {iio, jio, iii, jii});
  std::string f = s.fuse(C, io, jo);
  s.parallel(C, f);
  auto [jiio, jiii] = s.split(C, jii, 16);
  s.vectorize(C, jiii);
  s.compute_at(L, C, jio);
  // Accumulator block: k outermost, rows x column vectors unrolled in registers.
  auto [lio, lii] = s.split(L, "i", t.reg_i);
  auto [ljo, lji] = s.split(L, "j", t.reg_j);
  auto [ljio, ljii] = s.split(L, lji, 16);
  if (t.unroll_k > 1) {
    auto [ko, ki] = s.split(L, "k", t.unroll_k);
    s.reorder(L, {lio, ljo, ko, ki, lii, ljio, ljii});
    s.unroll(L, ki);
  } else {
    s.reorder(L, {lio, ljo, "k", lii, ljio, ljii});
  }
  s.vectorize(L, ljii);
  s.unroll(L, ljio);
  s.unroll(L, lii);
  return s;
}

std::vector<Tensor> packed_gemm(const Tensor &A, const Tensor &B, int panel) {
  int64_t M = A.shape()[0], K = A.shape()[1], N = B.shape()[1];
  Tensor Bp = compute({N / panel, K, panel}, [&](const std::vector<Var> &v) { return B(v[1], v[0] * panel + v[2]); },
                      "packB", "injective", {"jo", "k", "ji"});
  IterVar k = reduce_axis(K, "k");
  Tensor C = compute({M, N}, [&](const std::vector<Var> &v) {
    return sum(A(v[0], k.var) * Bp(v[1] / panel, k.var, v[1] % panel), {k});
  }, "matmul", "matmul", {"i", "j"});
  return {C};
}

Schedule hand_packed_gemm_schedule(const std::vector<Tensor> &outputs, const GemmTiling &t) {
  Schedule s = hand_gemm_schedule(outputs, t);
  s.parallel("packB", "jo");
  auto [o, i] = s.split("packB", "ji", 16);
  s.vectorize("packB", i);
  return s;
}

Schedule hand_conv_schedule(const std::vector<Tensor> &outputs) {
  Schedule s(outputs);
  const std::string C = s.stage_of(outputs[0]);
  std::string L = s.cache_write(C);
  // Output [n, k, h, w]: parallel over (k tile, h), register block of 4 out channels x 32 columns.
  auto [ko, ki] = s.split(C, "c", 4);
  auto [wo, wi] = s.split(C, "w", 32, TailStrategy::GuardWithIf);
  s.reorder(C, {"n", ko, "h", wo, ki, wi});
  std::string f = s.fuse(C, ko, "h");
  s.parallel(C, f);
  auto [wio, wii] = s.split(C, wi, 16);
  s.vectorize(C, wii);
  s.compute_at(L, C, wo);
  auto [lko, lki] = s.split(L, "c", 4);
  auto [lwo, lwi] = s.split(L, "w", 32);
  auto [lwio, lwii] = s.split(L, lwi, 16);
  s.reorder(L, {"n", lko, "h", lwo, "rc", "ry", "rx", lki, lwio, lwii});
  s.vectorize(L, lwii);
  s.unroll(L, lwio);
  s.unroll(L, lki);
  s.unroll(L, "rx");
  return s;
}

}  // namespace bench
}  // namespace tetune
