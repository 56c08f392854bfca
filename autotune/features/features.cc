#include "autotune/features/features.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <Halide.h>

#include "autotune/features/schedule_nest.h"
#include "codegen/loop_nest_reader.h"
#include "codegen/lower.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace features {

namespace {

const char *kAccessNames[kAccessFeatures] = {
    "trip",         "is_store",   "lanes",         "dense_vec",    "bytes",     "depth",
    "inner_extent", "inner_unrolled", "n_parallel", "par_extent",  "n_unrolled", "unroll_extent",
    "n_vectorized", "footprint",  "reuse",         "outer_trip",   "is_local",  "alloc_depth"};
const char *kGlobalNames[kGlobalFeatures] = {"n_loops",      "n_parallel", "par_outer", "par_per_thread", "n_unrolled",
                                             "n_vectorized", "n_alloc",    "alloc_total", "alloc_max",    "n_access",
                                             "float_ops",    "int_ops",    "max_depth", "dyn_bytes"};

double log2p(double x) { return std::log2(1.0 + std::max(0.0, x)); }

using codegen::sanitize;  // buffers are named as the lowered code names them

// Halide makes repeated Func names unique with a "$n" suffix; drop it (and ".buffer"-style suffixes).
std::string base_name(const std::string &n) {
  size_t cut = n.find('$');
  std::string b = cut == std::string::npos ? n : n.substr(0, cut);
  return b;
}

int depth_of(const LoopNest &n, int loop) {
  int d = 0;
  for (int i = loop; i >= 0; i = n.loops[i].parent) d++;
  return d;
}

}  // namespace

const std::vector<std::string> &feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (auto *g : kGlobalNames) v.push_back(std::string("g.") + g);
    for (const char *grp : {"all.mean.", "all.max.", "store.mean.", "store.max."})
      for (auto *a : kAccessNames) v.push_back(grp + std::string(a));
    for (int k = 0; k < kTopStores; k++)
      for (auto *a : kAccessNames) v.push_back("top" + std::to_string(k) + "." + a);
    for (const char *n : {"n_parallel", "par_extent", "par_per_thread", "vec_extent", "unroll_extent", "n_compute_at",
                          "n_inline", "inner_extent"})
      v.push_back(std::string("s.") + n);
    return v;
  }();
  return names;
}

std::vector<float> loop_nest_features(const LoopNest &nest, const Task &task, const Schedule *sched) {
  // Buffer sizes: tensors of the DAG by their Halide names, then allocations.
  std::map<std::string, double> footprint;
  std::map<std::string, int> alloc_depth;
  for (const auto &t : post_order(task.outputs))
    footprint[sanitize(t.name())] = static_cast<double>(t.size()) * t.dtype().bytes();
  for (const auto &a : nest.allocations) {
    if (a.bytes >= 0) footprint[base_name(a.buffer)] = static_cast<double>(a.bytes);
    alloc_depth[base_name(a.buffer)] = depth_of(nest, a.loop);
  }

  std::vector<std::vector<double>> acc;  // per access
  double dyn_bytes = 0;
  int max_depth = 0, n_vec = 0;
  for (const auto &a : nest.accesses) {
    std::vector<double> f(kAccessFeatures, 0.0);
    double trip = 1, par = 1, unr = 1;
    int npar = 0, nunr = 0, nvec = 0, depth = 0;
    for (int i = a.loop; i >= 0; i = nest.loops[i].parent) {
      const Loop &l = nest.loops[i];
      double e = l.extent < 0 ? 1.0 : static_cast<double>(l.extent);
      trip *= e;
      depth++;
      if (l.kind == "parallel" || l.kind == "gpu_block") { npar++; par *= e; }
      if (l.kind == "unrolled") { nunr++; unr *= e; }
      if (l.kind == "vectorized") nvec++;
    }
    double inner = a.loop >= 0 && nest.loops[a.loop].extent > 0 ? static_cast<double>(nest.loops[a.loop].extent) : 1.0;
    double bytes = trip * a.lanes * a.bytes_per_lane;
    const std::string buf = base_name(a.buffer);
    auto fp = footprint.find(buf);
    double foot = fp == footprint.end() ? 0.0 : fp->second;
    auto ad = alloc_depth.find(buf);
    f[0] = log2p(trip);
    f[1] = a.is_store ? 1 : 0;
    f[2] = std::log2(std::max(1, a.lanes));
    f[3] = (a.lanes > 1 && a.dense) ? 1 : 0;
    f[4] = log2p(bytes);
    f[5] = depth;
    f[6] = log2p(inner);
    f[7] = (a.loop >= 0 && nest.loops[a.loop].kind == "unrolled") ? 1 : 0;
    f[8] = npar;
    f[9] = log2p(par);
    f[10] = nunr;
    f[11] = log2p(unr);
    f[12] = nvec;
    f[13] = log2p(foot);
    f[14] = foot > 0 ? log2p(bytes / foot) : 0;
    f[15] = log2p(trip / inner);
    f[16] = (ad != alloc_depth.end() && ad->second > 0) ? 1 : 0;
    f[17] = ad == alloc_depth.end() ? 0 : ad->second;
    dyn_bytes += bytes;
    max_depth = std::max(max_depth, depth);
    if (a.lanes > 1) n_vec++;
    acc.push_back(std::move(f));
  }

  std::vector<float> row;
  row.reserve(kNumFeatures);
  // Global.
  int npar = 0, nunr = 0;
  double par_outer = 1;
  for (const auto &l : nest.loops) {
    if (l.kind == "parallel" || l.kind == "gpu_block") {
      npar++;
      bool outer = true;  // no parallel ancestor
      for (int p = l.parent; p >= 0; p = nest.loops[p].parent)
        if (nest.loops[p].kind == "parallel") outer = false;
      if (outer && l.extent > 0) par_outer *= static_cast<double>(l.extent);
    }
    if (l.kind == "unrolled") nunr++;
  }
  if (npar == 0) par_outer = 0;
  double alloc_total = 0, alloc_max = 0;
  for (const auto &a : nest.allocations)
    if (a.bytes > 0) { alloc_total += static_cast<double>(a.bytes); alloc_max = std::max(alloc_max, static_cast<double>(a.bytes)); }
  double g[kGlobalFeatures] = {static_cast<double>(nest.loops.size()),
                               static_cast<double>(npar),
                               log2p(par_outer),
                               log2p(par_outer / std::max(1, task.threads)),
                               static_cast<double>(nunr),
                               acc.empty() ? 0.0 : static_cast<double>(n_vec) / acc.size(),
                               static_cast<double>(nest.allocations.size()),
                               log2p(alloc_total),
                               log2p(alloc_max),
                               log2p(static_cast<double>(acc.size())),
                               log2p(static_cast<double>(nest.float_ops)),
                               log2p(static_cast<double>(nest.int_ops)),
                               static_cast<double>(max_depth),
                               log2p(dyn_bytes)};
  for (double v : g) row.push_back(static_cast<float>(v));

  auto aggregate = [&](bool stores_only) {
    std::vector<double> sum(kAccessFeatures, 0.0), mx(kAccessFeatures, 0.0);
    int n = 0;
    for (const auto &f : acc) {
      if (stores_only && f[1] == 0) continue;
      n++;
      for (int j = 0; j < kAccessFeatures; j++) { sum[j] += f[j]; mx[j] = std::max(mx[j], f[j]); }
    }
    for (int j = 0; j < kAccessFeatures; j++) row.push_back(static_cast<float>(n ? sum[j] / n : 0.0));
    for (int j = 0; j < kAccessFeatures; j++) row.push_back(static_cast<float>(mx[j]));
  };
  aggregate(false);
  aggregate(true);

  std::vector<int> stores;
  for (size_t i = 0; i < acc.size(); i++)
    if (acc[i][1] != 0) stores.push_back(static_cast<int>(i));
  std::stable_sort(stores.begin(), stores.end(), [&](int a, int b) { return acc[a][4] > acc[b][4]; });
  for (int k = 0; k < kTopStores; k++)
    for (int j = 0; j < kAccessFeatures; j++)
      row.push_back(k < static_cast<int>(stores.size()) ? static_cast<float>(acc[stores[k]][j]) : 0.0f);
  double sf[kScheduleFeatures] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (sched) {
    double par = 1, vec = 0, unr = 1;
    int npar = 0, nat = 0, ninl = 0;
    for (const auto &st : sched->stages()) {
      if (st.attach.kind == Attach::At) nat++;
      if (st.attach.kind == Attach::Inline) ninl++;
      for (const auto &l : st.leaves) {
        if (l.annotation == "parallel") { npar++; par *= static_cast<double>(l.extent); }
        if (l.annotation == "vectorize") vec = std::max(vec, static_cast<double>(l.extent));
        if (l.annotation == "unroll") unr *= static_cast<double>(l.extent);
      }
      if (st.is_output && !st.leaves.empty()) sf[7] = log2p(static_cast<double>(st.leaves.back().extent));
    }
    sf[0] = npar;
    sf[1] = npar ? log2p(par) : 0;
    sf[2] = npar ? log2p(par / std::max(1, task.threads)) : 0;
    sf[3] = log2p(vec);
    sf[4] = unr > 1 ? log2p(unr) : 0;
    sf[5] = nat;
    sf[6] = ninl;
  }
  for (double v : sf) row.push_back(static_cast<float>(v));
  return row;
}

LoopNest lower_loop_nest(const Schedule &s, const Task &task) {
  codegen::LoweredPipeline lp = codegen::lower(s);
  try {
    Halide::Target t(task.target.halide_string());
    Halide::Module m = lp.pipeline.compile_to_module(lp.arguments(), "kernel", t);
    return codegen::read_loop_nest(m);
  } catch (const Halide::Error &e) {
    throw CodegenError(std::string("Halide failed to lower the kernel: ") + e.what());
  }
}

std::vector<float> schedule_features(const Schedule &s, const Task &task) {
  return loop_nest_features(schedule_loop_nest(s, task), task, &s);
}

std::vector<float> lowered_schedule_features(const Schedule &s, const Task &task) {
  return loop_nest_features(lower_loop_nest(s, task), task, &s);
}

}  // namespace features
}  // namespace autotune
}  // namespace tetune
