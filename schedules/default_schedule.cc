#include "schedules/default_schedule.h"

#include <functional>

#include "schedule/parallel_grain.h"
#include "base/errors.h"
#include "te/expr_functor.h"

namespace tetune {
namespace schedules {

namespace {
bool has_select(const Expr &e) {
  return any_of(e, [](const Expr &x) { return x->kind == ExprKind::Select; });
}

bool read_by_reduction(const Schedule &s, const std::string &stage) {
  for (const auto &st : s.stages())
    if (st.is_reduction())
      for (const auto &r : st.reads)
        if (r == stage) return true;
  return false;
}

constexpr int64_t kTasksPerThread = 16;
// Points (times reduce extents) below which a stage runs on one thread.
constexpr int64_t kSerialWork = 8192;
}  // namespace

Schedule simple_cpu_schedule(const std::vector<Tensor> &outputs, int vector_width, int threads) {
  Schedule s(outputs);
  std::vector<std::string> names;
  for (const auto &st : s.stages()) names.push_back(st.name);
  // 1. inline cheap intermediate stages
  for (const auto &nm : names) {
    const StageInfo &st = s.stage(nm);
    if (st.is_output || st.is_reduction() || st.kind != StageInfo::Compute) continue;
    if (has_select(st.tensor->body) && read_by_reduction(s, nm)) continue;
    // An integer stage read by a reduction (MatMulInteger's zero-point shift)
    // stays at root: inlined into a vectorized integer product, Halide 14
    // rewrites (int32(a) - int32(a_zp)) into a wrong widening of uint16 sums.
    const DType dt = st.tensor->dtype;
    if ((dt.is_int() || dt.is_uint()) && read_by_reduction(s, nm)) continue;
    try {
      s.compute_inline(nm);
    } catch (const ScheduleError &) {
    }
  }
  // 2. parallel + vectorize each root stage
  for (const auto &nm : names) {
    const StageInfo &st0 = s.stage(nm);
    if (st0.attach.kind != Attach::Root || st0.spatial_axes.empty()) continue;
    std::vector<std::string> sp = st0.spatial_axes;
    std::vector<std::string> red;
    for (const auto &iv : st0.reduce_axes) red.push_back(iv.var.name());
    // The vector axis: the innermost one longer than 1 (a weight [K, C, 1, 1]
    // vectorizes along C); the unit axes after it stay outside its lanes.
    size_t vi = sp.size() - 1;
    while (vi > 0 && st0.shape[vi] == 1) vi--;
    const std::vector<std::string> units(sp.begin() + static_cast<std::ptrdiff_t>(vi) + 1, sp.end());
    sp.resize(vi + 1);
    // A transform into NCHW[b]c reads its input along W: its lanes are W's
    // (the channel lanes would gather across H x W planes, one page each: a
    // 96 x 160 x 160 transform took 9.3 ms so), the channel block unrolled
    // inside them.
    const auto layout = st0.tensor->attrs.find("layout");
    const bool to_blocked = st0.tensor->attrs.count("op") && st0.tensor->attrs.at("op") == "LayoutTransform" &&
                            layout != st0.tensor->attrs.end() && layout->second.size() > 4 && layout->second.back() == 'c' &&
                            sp.size() == 5 && vi == 4 && st0.shape[3] >= 4;
    if (to_blocked) {
      try {
        s.reorder(nm, {sp[0], sp[1], sp[2], sp[4], sp[3]});
        s.unroll(nm, sp[4]);
        sp = {sp[0], sp[1], sp[2], sp[3]};
        vi = 3;
      } catch (const ScheduleError &) {
      }
    }
    std::string inner = sp.back();
    int64_t inner_ext = st0.shape[vi];
    int width = inner_ext >= 4 * vector_width ? 2 * vector_width : vector_width;
    int64_t max_tasks = kTasksPerThread * std::max(1, threads);
    // Vectorizes `lanes` as the innermost loop: after the other spatial loops
    // (`outer`: the vector axis's outer part, if split), the unit axes and the
    // reduce leaves as they currently stand.
    auto vectorize_innermost = [&](const std::string &outer, const std::string &lanes) {
      if (!red.empty() || !units.empty()) {
        std::vector<std::string> order(sp.begin(), sp.end() - 1);
        if (!outer.empty()) order.push_back(outer);
        order.insert(order.end(), units.begin(), units.end());
        for (const auto &l : s.stage(nm).leaves)
          if (l.is_reduce) order.push_back(l.name);
        order.push_back(lanes);
        s.reorder(nm, order);
      }
      s.vectorize(nm, lanes);
    };
    try {
      if (inner_ext > vector_width) {
        auto [wo, wi] = s.split(nm, inner, width, TailStrategy::GuardWithIf);
        vectorize_innermost(wo, wi);
      } else if (!red.empty() && inner_ext >= 4) {
        // A reduction's short inner axis (a pool's lanes of partial sums):
        // whole, inside the reduce loops, as one vector of accumulators.
        vectorize_innermost("", inner);
      }
      bool window = !red.empty();
      for (const auto &iv : st0.reduce_axes) window &= iv.extent <= kWholeWindow;
      if (window)
        for (const auto &r : red) s.unroll(nm, r);
    } catch (const ScheduleError &) {
    }
    // Work too small to share: a parallel loop's hand-off to the other
    // threads costs about a microsecond (an LSTM's per-step Gather of 1024
    // floats: 1 us at 2 threads, 0.1 us at 1).
    int64_t work = st0.tensor.size();
    for (const auto &iv : st0.reduce_axes) work *= iv.extent;
    if (work < kSerialWork) continue;
    try {
      // fuse the outer spatial axes (all but the innermost) and parallelise them
      if (sp.size() >= 2) {
        std::string f = sp[0];
        for (size_t i = 1; i + 1 < sp.size(); i++) f = s.fuse(nm, f, sp[i]);
        parallel_with_max_tasks(s, nm, f, max_tasks);
      } else if (inner_ext >= 4 * vector_width) {
        // 1-D: parallel over the outer part of the split
        const auto &leaves = s.stage(nm).leaves;
        if (!leaves.empty() && !leaves[0].is_reduce && leaves[0].annotation.empty())
          parallel_with_max_tasks(s, nm, leaves[0].name, max_tasks);
      }
    } catch (const ScheduleError &) {
    }
  }
  return s;
}

}  // namespace schedules
}  // namespace tetune
