#include "schedules/gpu_schedules.h"

#include "base/errors.h"

namespace tetune {

namespace {
// The output stage of C, checked to be a 2-d matmul of two inputs (ScheduleError naming `who` otherwise).
std::string matmul_stage(const Schedule &s, const Tensor &C, const std::string &who) {
  const std::string out = s.stage_of(C);
  const StageInfo &root = s.stage(out);
  if (root.spatial_axes.size() != 2 || root.reduce_axes.size() != 1 || s.inputs().size() != 2)
    throw ScheduleError(who + ": '" + out + "' is not a 2-d matmul of two inputs");
  return out;
}
}  // namespace

Schedule gpu_gemm_schedule(const Tensor &C, const GpuGemmTiles &t) {
  Schedule s({C});
  const std::string out = matmul_stage(s, C, "gpu_gemm_schedule");
  const StageInfo &root = s.stage(out);
  const std::string i = root.spatial_axes[0], j = root.spatial_axes[1], k = root.reduce_axes[0].var.name();
  const std::string A = s.inputs()[0].name(), B = s.inputs()[1].name();
  std::string local = s.cache_write(out);
  std::string As = s.cache_read(A, {local});
  std::string Bs = s.cache_read(B, {local});

  // Output: blocks over block x block tiles, threads over thread x thread sub-tiles.
  auto [io, ii] = s.split(out, i, t.block);
  auto [jo, ji] = s.split(out, j, t.block);
  auto [ti, ri] = s.split(out, ii, t.thread);
  auto [tj, rj] = s.split(out, ji, t.thread);
  s.reorder(out, {io, jo, ti, tj, ri, rj});
  s.bind(out, io, "blockIdx.y");
  s.bind(out, jo, "blockIdx.x");
  s.bind(out, ti, "threadIdx.y");
  s.bind(out, tj, "threadIdx.x");
  s.unroll(out, ri);
  s.unroll(out, rj);

  // Accumulator tile at the block loop, k outermost, the same thread mapping.
  s.compute_at(local, out, jo);
  auto [lti, lri] = s.split(local, i, t.thread);
  auto [ltj, lrj] = s.split(local, j, t.thread);
  auto [ko, ki] = s.split(local, k, t.k_step);
  s.reorder(local, {ko, lti, ltj, ki, lri, lrj});
  s.bind(local, lti, "threadIdx.y");
  s.bind(local, ltj, "threadIdx.x");
  s.unroll(local, lri);
  s.unroll(local, lrj);

  // Shared tiles of A (block x k_step) and B (k_step x block), one per k step.
  int64_t threads = t.block / t.thread;
  for (const std::string &c : {As, Bs}) {
    s.compute_at(c, local, ko);
    const StageInfo &st = s.stage(c);
    std::string r = st.spatial_axes[0], col = st.spatial_axes[1];
    bool rows_are_block = (c == As);  // A tile: block rows x k_step cols; B tile: k_step rows x block cols
    if (rows_are_block) {
      auto [ro, rin] = s.split(c, r, t.block / threads);
      s.reorder(c, {ro, col, rin});
      s.bind(c, ro, "threadIdx.y");
      s.bind(c, col, "threadIdx.x");
    } else {
      auto [co, cin] = s.split(c, col, t.block / threads);
      s.reorder(c, {r, co, cin});
      s.bind(c, r, "threadIdx.y");
      s.bind(c, co, "threadIdx.x");
    }
  }
  return s;
}

Schedule gpu_gemm_register_schedule(const Tensor &C, const GpuGemmRegisterTiles &t) {
  Schedule s({C});
  const std::string out = matmul_stage(s, C, "gpu_gemm_register_schedule");
  const StageInfo &root = s.stage(out);
  const std::string i = root.spatial_axes[0], j = root.spatial_axes[1], k = root.reduce_axes[0].var.name();
  const std::string A = s.inputs()[0].name(), B = s.inputs()[1].name();
  std::string local = s.cache_write(out);

  // Per-thread tiles of C, then threads_i x threads_j of them per block.
  auto [io, ii] = s.split(out, i, t.tile_i);
  auto [jo, ji] = s.split(out, j, t.tile_j);
  auto [bi, ti] = s.split(out, io, t.threads_i);
  auto [bj, tj] = s.split(out, jo, t.threads_j);
  s.reorder(out, {bi, bj, ti, tj, ii, ji});
  s.bind(out, bi, "blockIdx.y");
  s.bind(out, bj, "blockIdx.x");
  s.bind(out, ti, "threadIdx.y");
  s.bind(out, tj, "threadIdx.x");
  s.unroll(out, ii);
  if (t.tile_j > 1) s.vectorize(out, ji);

  // The accumulator per thread: its loops over the thread's tile are unrolled
  // and vectorized (constant indices keep it in registers), k outermost.
  // (The splits by the tile give loops of one iteration outside; the unrolled
  // inner ones have the tile's nominal extent.)
  s.compute_at(local, out, tj);
  auto [lio, lii] = s.split(local, i, t.tile_i);
  auto [ljo, lji] = s.split(local, j, t.tile_j);
  auto [ko, ki] = s.split(local, k, t.k_unroll);
  s.reorder(local, {lio, ljo, ko, ki, lii, lji});
  if (t.k_unroll > 1) s.unroll(local, ki);
  s.unroll(local, lii);
  if (t.tile_j > 1) s.vectorize(local, lji);
  if (!t.stage) return s;

  // Register copies of this k group's A rows and B columns: A is (i, k) with
  // k contiguous, B is (k, j) with j contiguous; vectorize the contiguous axis.
  // (Split by the thread's tile, as above, so the unrolled loops have its nominal extent.)
  for (const std::string &in : {A, B}) {
    std::string reg = s.cache_read(in, {local});
    s.compute_at(reg, local, ko);
    const StageInfo &st = s.stage(reg);
    const bool is_a = in == A;
    auto [ro, ri] = s.split(reg, st.spatial_axes[0], is_a ? t.tile_i : t.k_unroll);
    auto [co, ci] = s.split(reg, s.stage(reg).spatial_axes[1], is_a ? t.k_unroll : t.tile_j);
    s.reorder(reg, {ro, co, ri, ci});
    s.unroll(reg, ri);
    if ((is_a ? t.k_unroll : t.tile_j) > 1) s.vectorize(reg, ci);
  }
  return s;
}

Schedule gpu_simple_schedule(const std::vector<Tensor> &outputs, int64_t threads) {
  Schedule s(outputs);
  std::vector<std::string> names;
  for (const auto &st : s.stages()) names.push_back(st.name);
  for (const auto &n : names) {
    const StageInfo &st = s.stage(n);
    if (st.is_output || st.is_reduction() || st.kind != StageInfo::Compute) continue;
    try {
      s.compute_inline(n);
    } catch (const ScheduleError &) {
    }
  }
  std::vector<std::pair<std::string, std::string>> thread_loops;  // root stage -> its thread loop
  for (const auto &n : names) {
    const StageInfo &st = s.stage(n);
    if (st.attach.kind != Attach::Root || !st.is_output) continue;
    std::string f = st.spatial_axes[0];
    for (size_t d = 1; d < st.spatial_axes.size(); d++) f = s.fuse(n, f, st.spatial_axes[d]);
    auto [bo, ti] = s.split(n, f, threads);
    s.bind(n, bo, "blockIdx.x");
    s.bind(n, ti, "threadIdx.x");
    thread_loops.emplace_back(n, ti);
  }
  // Non-output stages still at root (reductions): per thread at a consumer, else their own kernel.
  for (const auto &n : names) {
    const StageInfo &st = s.stage(n);
    if (st.attach.kind != Attach::Root || st.is_output) continue;
    bool placed = false;
    for (const auto &tl : thread_loops) {
      try {
        s.compute_at(n, tl.first, tl.second);
        placed = true;
        break;
      } catch (const ScheduleError &) {
      }
    }
    if (placed) continue;
    std::string f = st.spatial_axes[0];
    for (size_t d = 1; d < st.spatial_axes.size(); d++) f = s.fuse(n, f, st.spatial_axes[d]);
    auto [bo, ti] = s.split(n, f, threads);
    s.bind(n, bo, "blockIdx.x");
    s.bind(n, ti, "threadIdx.x");
  }
  return s;
}

}  // namespace tetune
