#include "schedules/hand_schedules.h"

namespace tetune {
namespace schedules {

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
  // The pad stage (a select) is inlined into the accumulator's loads.
  for (const auto &st : s.stages())
    if (st.name != C && !st.is_output && !st.is_reduction() && st.kind == StageInfo::Compute) s.compute_inline(st.name);
  std::string L = s.cache_write(C);
  // Output [n, c, h, w]: one parallel task per (32 out channels, 2 rows); the
  // accumulator tile (32 channels x 2 rows x 56 columns, 14 KiB, L1) is
  // computed at it.
  auto [co, ci] = s.split(C, "c", 32);
  auto [ho, hi] = s.split(C, "h", 2);
  s.reorder(C, {"n", co, ho, ci, hi, "w"});
  std::string f = s.fuse(C, co, ho);
  s.parallel(C, f);
  auto [wo, wi] = s.split(C, "w", 8);
  s.vectorize(C, wi);
  s.compute_at(L, C, f);
  // Accumulator: rc in blocks of 4 outside 4 channel groups x 7 column
  // vectors; inside, the register block of 8 channels x 2 rows x 8 columns
  // (16 accumulators) with the 3x3 window's column loop unrolled.
  // (The tile's own splits first: computed at the tile, L's loops keep their nominal extents.)
  auto [lct, lcb] = s.split(L, "c", 32);
  auto [lco, lci] = s.split(L, lcb, 8);
  auto [lht, lhi] = s.split(L, "h", 2);
  auto [lwo, lwi] = s.split(L, "w", 8);
  auto [rco, rci] = s.split(L, "rc", 4);
  s.reorder(L, {"n", lct, lht, rco, lco, lwo, rci, "ry", "rx", lci, lhi, lwi});
  s.vectorize(L, lwi);
  s.unroll(L, lhi);
  s.unroll(L, lci);
  s.unroll(L, "rx");
  return s;
}

}  // namespace schedules
}  // namespace tetune
