#include "schedules/gpu_reduction_schedule.h"

#include <algorithm>

#include "base/errors.h"

namespace tetune {

namespace {

[[noreturn]] void fail(const std::string &msg) { throw ScheduleError("gpu_reduction_schedule: " + msg); }

// Fuses adjacent leaves of a stage, outermost first, into one loop.
std::string fuse_all(Schedule &s, const std::string &stage, const std::vector<std::string> &axes) {
  std::string f = axes.at(0);
  for (size_t i = 1; i < axes.size(); i++) f = s.fuse(stage, f, axes[i]);
  return f;
}

std::vector<std::string> concat(std::initializer_list<const std::vector<std::string> *> parts) {
  std::vector<std::string> r;
  for (const auto *p : parts) r.insert(r.end(), p->begin(), p->end());
  return r;
}

// Unrolls the loops innermost first while the stage's unrolled iterations stay within the
// 64 that Schedule allows per stage (nested unrolling multiplies code size); the rest stay serial.
void unroll_inner(Schedule &s, const std::string &stage, const std::vector<std::string> &axes) {
  int64_t unrolled = 1;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    const StageInfo &st = s.stage(stage);
    int64_t extent = st.leaves.at(st.leaf_index(*it)).extent;
    if (extent <= 1) continue;
    if (unrolled * extent > 64) break;
    s.unroll(stage, *it);
    unrolled *= extent;
  }
}

void check_levels(const std::string &axis, int64_t extent, std::initializer_list<int64_t> levels) {
  int64_t prod = 1;
  for (int64_t l : levels) {
    if (l < 1) fail("axis '" + axis + "' has a tile level " + std::to_string(l) + " < 1");
    prod *= l;
  }
  if (extent % prod != 0)
    fail("the tile levels of axis '" + axis + "' multiply to " + std::to_string(prod) + ", which does not divide its extent " +
         std::to_string(extent));
}

}  // namespace

std::optional<GpuReductionNest> find_gpu_reduction(const std::vector<Tensor> &outputs) {
  if (outputs.size() != 1) return std::nullopt;
  Schedule s(outputs);
  GpuReductionNest nest;
  std::vector<std::string> names;
  for (const auto &st : s.stages()) names.push_back(st.name);
  for (const auto &n : names) {
    const StageInfo &st = s.stage(n);
    if (st.is_output || st.is_reduction() || st.kind != StageInfo::Compute) continue;
    try {
      s.compute_inline(n);
      nest.inlined.push_back(n);
    } catch (const ScheduleError &) {
      return std::nullopt;  // an elementwise stage that must stay: not this form
    }
  }
  std::vector<const StageInfo *> left;
  for (const auto &st : s.stages())
    if (st.attach.kind != Attach::Inline) left.push_back(&st);
  const StageInfo *red = nullptr, *out = nullptr;
  for (const StageInfo *st : left) {
    if (st->kind != StageInfo::Compute) return std::nullopt;
    if (st->is_reduction()) {
      if (red || !st->rfactor.of.empty() || !st->rfactor.partial.empty()) return std::nullopt;
      red = st;
    }
    if (st->is_output) out = st;
  }
  if (!red || !out || red->spatial_axes.empty() || left.size() > 2) return std::nullopt;
  if (out != red) {
    // The fused consumer: elementwise over R's shape and reading R.
    if (out->is_reduction() || out->shape != red->shape ||
        std::find(out->reads.begin(), out->reads.end(), red->name) == out->reads.end())
      return std::nullopt;
  }
  nest.reduction = red->name;
  nest.output = out->name;
  for (size_t d = 0; d < red->spatial_axes.size(); d++) nest.spatial.emplace_back(red->spatial_axes[d], red->shape[d]);
  for (const auto &r : red->reduce_axes) nest.reduce.emplace_back(r.var.name(), r.extent);
  return nest;
}

Schedule gpu_reduction_schedule(const std::vector<Tensor> &outputs, const GpuReductionTiles &tiles) {
  std::optional<GpuReductionNest> nest = find_gpu_reduction(outputs);
  if (!nest) fail("the DAG is not one reduction with at most one fused elementwise output (after inlining)");
  std::map<std::string, GpuSpatialSplit> sp;
  std::map<std::string, GpuReduceSplit> rd;
  for (const auto &[a, e] : nest->spatial) sp[a] = GpuSpatialSplit{};
  for (const auto &[a, e] : nest->reduce) rd[a] = GpuReduceSplit{};
  for (const auto &[a, t] : tiles.spatial) {
    if (!sp.count(a)) fail("stage '" + nest->reduction + "' has no spatial axis '" + a + "'");
    sp[a] = t;
  }
  for (const auto &[a, t] : tiles.reduce) {
    if (!rd.count(a)) fail("stage '" + nest->reduction + "' has no reduce axis '" + a + "'");
    rd[a] = t;
  }
  for (const auto &[a, e] : nest->spatial) check_levels(a, e, {sp[a].vthread, sp[a].thread, sp[a].inner});
  for (const auto &[a, e] : nest->reduce) check_levels(a, e, {rd[a].mid, rd[a].inner});

  Schedule s(outputs);
  for (const auto &n : nest->inlined) s.compute_inline(n);
  const std::string out = nest->output;
  // The accumulator: a cache_write stage when R is the output, else R itself (fused into its consumer).
  const std::string acc = out == nest->reduction ? s.cache_write(out) : nest->reduction;
  std::vector<std::string> reads = s.stage(acc).reads;
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  std::vector<std::string> caches;
  for (const auto &t : reads) caches.push_back(s.cache_read(t, {acc}));

  // Output: [blocks][threads][vthreads][inners]; the output's axis d is R's axis d (same shape).
  std::vector<std::string> ob, ot, ov, oi;
  int64_t threads = 1;
  for (size_t d = 0; d < nest->spatial.size(); d++) {
    const GpuSpatialSplit &t = sp[nest->spatial[d].first];
    const std::string axis = s.stage(out).spatial_axes[d];
    auto [b, r1] = s.split(out, axis, t.vthread * t.thread * t.inner);
    auto [v, r2] = s.split(out, r1, t.thread * t.inner);
    auto [th, in] = s.split(out, r2, t.inner);
    ob.push_back(b), ov.push_back(v), ot.push_back(th), oi.push_back(in);
    threads *= t.thread;
  }
  s.reorder(out, concat({&ob, &ot, &ov, &oi}));
  const std::string block = fuse_all(s, out, ob);
  s.bind(out, block, "blockIdx.x");
  s.bind(out, fuse_all(s, out, ot), "threadIdx.x");
  unroll_inner(s, out, oi);

  // Accumulator at the block loop: [k outer][threads][k mid][vthreads][k inner][inners].
  s.compute_at(acc, out, block);
  std::vector<std::string> at, av, ai, ko, km, ki;
  for (const auto &[axis, e] : nest->spatial) {
    const GpuSpatialSplit &t = sp[axis];
    auto [v, r] = s.split(acc, axis, t.thread * t.inner);
    auto [th, in] = s.split(acc, r, t.inner);
    av.push_back(v), at.push_back(th), ai.push_back(in);
  }
  for (const auto &[axis, e] : nest->reduce) {
    const GpuReduceSplit &t = rd[axis];
    auto [o, r] = s.split(acc, axis, t.mid * t.inner);
    auto [m, in] = s.split(acc, r, t.inner);
    ko.push_back(o), km.push_back(m), ki.push_back(in);
  }
  s.reorder(acc, concat({&ko, &at, &km, &av, &ki, &ai}));
  s.bind(acc, fuse_all(s, acc, at), "threadIdx.x");
  unroll_inner(s, acc, ai);

  // Shared copies of one reduction step, loaded cooperatively: fused loops split over the block's threads.
  for (const auto &c : caches) {
    s.compute_at(c, acc, ko.back());
    const std::vector<std::string> axes = s.stage(c).spatial_axes;
    std::string lane = s.split(c, fuse_all(s, c, axes), threads).second;
    s.bind(c, lane, "threadIdx.x");
  }
  return s;
}

}  // namespace tetune
