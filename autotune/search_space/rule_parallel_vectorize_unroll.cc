// Annotation (Ansor section 4.2, "random annotation"): on CPU the outer
// spatial tile loops are fused and marked parallel, the innermost spatial loop
// is vectorized, and the innermost reduce loops are unrolled.
//
// Parameters of a tiled stage S:
//   "S.parallel"   how many outer loops (outermost first: S0 of every axis,
//                  then S1, ...) are fused into the parallel loop; 0 = serial.
//                  Clamped to the number of outer loops of the sketch.
//   "S.par_grain"  tasks per thread of the parallel loop: a fused loop longer
//                  than par_grain * threads is split and its outer part is
//                  the parallel one (schedule/parallel_grain.h says why).
//   "S.max_unroll" the R1 loops are unrolled from the innermost outwards while
//                  the product of their extents stays <= max_unroll (0, 4, 16, 64).
//   the vector width is the innermost tile level of the last spatial axis
//   ("S.tile.<last axis>.3", a divisor of the extent or a power of two <= 16).
#include <algorithm>

#include "autotune/search_space/search_space_internal.h"
#include "schedule/parallel_grain.h"

namespace tetune {
namespace autotune {
namespace ss {

void add_annotation_params(const Graph &g, const StagePlan &p, Sketch &s) {
  const StageInfo &st = g.stage(p.stage);
  int n_untiled = 0, n_tiled = 0;
  for (auto e : st.shape) (e > 1 ? n_tiled : n_untiled)++;
  int max_outer = n_untiled + 2 * n_tiled;
  if (p.cache_write || !p.consumer.empty()) max_outer = n_untiled + 3 * n_tiled;  // S0 S1 S2 at at_level 2
  ChoiceSpec par{p.stage, p.stage + ".parallel", {}, {}};
  for (int k = 0; k <= max_outer; k++) {
    par.values.push_back(k);
    par.weights.push_back(k == 0 ? 0.5 : (k <= n_untiled + n_tiled ? 2.0 : 0.5));
  }
  s.choices.push_back(par);
  add_par_grain_param(p.stage, s);
  s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".max_unroll", {0, 4, 16, 64}, {}});
  if (p.cache_write || !p.consumer.empty()) s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".at_level", {1, 2}, {}, true});
}

void add_par_grain_param(const std::string &stage, Sketch &s) {
  s.choices.push_back(ChoiceSpec{stage, stage + ".par_grain", {4, 16, 64}, {1.0, 2.0, 1.0}});
}

int64_t leaf_extent(const Schedule &sch, const std::string &stage, const std::string &loop) {
  const StageInfo &st = sch.stage(stage);
  int i = st.leaf_index(loop);
  return i < 0 ? -1 : st.leaves[i].extent;
}

void fuse_parallel(Inst &in, const std::string &stage, std::vector<std::string> &order, int n) {
  if (n <= 0 || order.empty()) return;
  n = std::min<int>(n, static_cast<int>(order.size()));
  // A leading loop of extent 1 (an untiled axis, or an axis in one outer tile
  // whose split has a tail) runs once: the parallel loops start after it, so
  // that a tail there does not stop the fusion of the loops that do iterate
  // (GEMM rows in one tile of 6-row blocks, then the column tiles).
  if (n > 1 && leaf_extent(in.sch, stage, order[0]) == 1) {
    std::vector<std::string> rest(order.begin() + 1, order.end());
    fuse_parallel(in, stage, rest, n - 1);
    order.resize(1);
    order.insert(order.end(), rest.begin(), rest.end());
    return;
  }
  int fusible = 0;
  while (fusible < static_cast<int>(order.size()) && !in.tail_loops.count({stage, order[fusible]})) fusible++;
  int64_t max_tasks = in.param(stage + ".par_grain", 16) * std::max(1, in.g.threads);
  // The loops before the first tail loop may all have extent 1 (a conv's
  // batch and a tile of all its output channels): fused they give one task.
  // Then the tail loop itself runs in parallel where it stands (its shifted
  // last tile recomputes a few rows another task also writes, with the same values).
  if (fusible < n) {
    bool ones = true;
    for (int k = 0; k < fusible; k++) ones &= leaf_extent(in.sch, stage, order[k]) == 1;
    if (ones && leaf_extent(in.sch, stage, order[fusible]) <= max_tasks) {
      in.sch.parallel(stage, order[fusible]);
      return;
    }
  }
  n = std::max(1, std::min(n, fusible));
  std::string f = order[0];
  for (int k = 1; k < n; k++) f = in.sch.fuse(stage, f, order[k]);
  std::string par = parallel_with_max_tasks(in.sch, stage, f, max_tasks);
  order.erase(order.begin(), order.begin() + n);
  order.insert(order.begin(), f);
  if (par != f) {  // split: the outer part runs in parallel, the inner one stays an outer (tile) loop
    order[0] = par;
    order.insert(order.begin() + 1, f + "_i");
  }
}

void unroll_inner(Schedule &sch, const std::string &stage, const std::vector<std::string> &loops, int64_t max_unroll) {
  int64_t prod = 1;
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    int64_t e = leaf_extent(sch, stage, *it);
    if (e <= 1) continue;
    if (e > kMaxWholeUnroll) {
      // A long loop around the unrolled ones (a K block of a GEMM, hundreds of steps) unrolled in
      // part, as BLIS unrolls its micro-kernel's k loop by 4: without it, a K-blocked 6 x 64
      // block ran 0.96x the unblocked one instead of 1.05x (bench/RESULTS.md, 2026-12-06
      // thirty-seventh session).
      for (int64_t f : {kPartialUnroll, kPartialUnroll / 2})
        if (e % f == 0 && prod * f <= max_unroll) {
          sch.unroll(stage, sch.split(stage, *it, f).second);
          break;
        }
      break;
    }
    if (prod * e > max_unroll) break;
    prod *= e;
    sch.unroll(stage, *it);
  }
}

void maybe_vectorize(Schedule &sch, const std::string &stage, const std::string &loop) {
  int64_t e = leaf_extent(sch, stage, loop);
  if (e >= 2 && e <= 64) sch.vectorize(stage, loop);
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
