#include "relay_import/executor.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>

#include "relay_import/host_ops.h"
#include "relay_import/packed_weights.h"
#include "relay_import/passes/batch_norm_folding.h"
#include "relay_import/passes/blocked_layout.h"
#include "relay_import/passes/denormal_weights.h"
#include "relay_import/passes/winograd.h"
#include "relay_import/passes/channel_scale_folding.h"
#include "relay_import/passes/constant_folding.h"
#include "relay_import/passes/cse.h"
#include "relay_import/passes/dead_code.h"
#include "relay_import/passes/gemm_weight_layout.h"
#include "relay_import/passes/matmul_flatten.h"
#include "relay_import/passes/unit_axis_transpose.h"
#include "relay_import/passes/layer_norm_fusion.h"
#include "base/errors.h"

namespace tetune {
namespace relay {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

const std::vector<std::string> &layout_names() {
  static const std::vector<std::string> names = {"blocked", "blocked-direct", "nchw"};
  return names;
}

void set_layout(CompileOptions &co, const std::string &layout) {
  if (std::find(layout_names().begin(), layout_names().end(), layout) == layout_names().end())
    throw UsageError("layout '" + layout + "' is not one of blocked, blocked-direct, nchw");
  co.blocked_layout = layout != "nchw";
  co.winograd = layout == "blocked";
}

void run_graph_passes(Graph &g, const CompileOptions &options, CompileStats *stats) {
  CompileStats local;
  CompileStats &st = stats ? *stats : local;
  st.nodes_imported = g.num_live_nodes();
  fold_constants(g);
  g.compact();
  st.transposes_as_views = transposes_of_unit_axes_to_views(g);
  if (options.fuse_layer_norm) st.fused_layer_norms = fuse_layer_norms(g);
  if (options.fold_batch_norm) {
    st.folded_batch_norms = fold_batch_norms(g);
    st.affine_batch_norms = batch_norms_to_affine(g);
  }
  pretranspose_gemm_weights(g);
  flatten_batched_matmuls(g);
  if (options.fold_channel_scales) st.folded_channel_scales = fold_channel_scales_into_convs(g);
  if (options.blocked_layout) {
    BlockedLayoutStats layout = convert_to_blocked_layout(g, channel_block(options.target));
    st.blocked_convs = layout.convs;
    st.layout_transforms = layout.transforms;
    if (options.winograd) {
      if (options.record_ms || options.list_conv_forms) st.conv_forms = conv_forms(g, options);
      std::set<std::string> direct;
      for (const ConvForms &f : st.conv_forms)
        if (f.direct_faster() != options.other_conv_forms) direct.insert(f.conv);
      st.winograd_convs = static_cast<int>(convert_convs_to_winograd(g, direct).size());
      for (const Node &n : g.nodes)
        st.winograd_f4_convs += !n.dead && n.op == "tetune.WinogradOutput" && n.attr_i("m", 2) == 4;
    }
  }
  run_cleanup_passes(g, options, &st);
  st.nodes_after_passes = g.num_live_nodes();
}

void run_cleanup_passes(Graph &g, const CompileOptions &options, CompileStats *stats) {
  CompileStats local;
  CompileStats &st = stats ? *stats : local;
  if (options.flush_subnormal_weights) st.flushed_subnormals = flush_subnormal_constants(g);
  if (options.cse) st.cse_removed = eliminate_common_subexpressions(g);
  st.dce_removed = eliminate_dead_code(g);
}

int assign_buffer(std::vector<int64_t> &buffer_bytes, std::vector<int> &busy_until, int64_t bytes, int first, int last) {
  int best = -1;
  for (int b = 0; b < static_cast<int>(buffer_bytes.size()); b++) {
    if (busy_until[b] >= first) continue;
    if (best < 0) {
      best = b;
      continue;
    }
    bool fits_b = buffer_bytes[b] >= bytes, fits_best = buffer_bytes[best] >= bytes;
    if (fits_b && (!fits_best || buffer_bytes[b] < buffer_bytes[best])) best = b;
    else if (!fits_b && !fits_best && buffer_bytes[b] > buffer_bytes[best]) best = b;
  }
  if (best < 0) {
    best = static_cast<int>(buffer_bytes.size());
    buffer_bytes.push_back(0);
    busy_until.push_back(-1);
  }
  buffer_bytes[best] = std::max(buffer_bytes[best], bytes);
  busy_until[best] = last;
  return best;
}

MemoryPlan plan_memory(const Graph &g, const std::vector<FusedGroup> &groups) {
  MemoryPlan plan;
  std::set<int> graph_outs(g.outputs.begin(), g.outputs.end());
  std::map<int, int> step_of_value;  // value -> producing step
  std::map<int, int> last_use;
  for (int s = 0; s < static_cast<int>(groups.size()); s++) {
    for (int v : groups[s].outputs) step_of_value[v] = s;
    for (int n : groups[s].nodes)
      for (int v : g.nodes[n].inputs)
        if (v >= 0) last_use[v] = std::max(last_use[v], s);
  }
  for (auto &kv : step_of_value) {
    int v = kv.first;
    if (graph_outs.count(v)) continue;
    MemoryPlan::Slot sl;
    sl.value = v;
    sl.bytes = g.values[v].nbytes();
    sl.first = kv.second;
    sl.last = last_use.count(v) ? last_use[v] : kv.second;
    plan.slots.push_back(sl);
    plan.no_reuse_bytes += sl.bytes;
  }
  std::sort(plan.slots.begin(), plan.slots.end(),
            [](const MemoryPlan::Slot &a, const MemoryPlan::Slot &b) { return a.first < b.first || (a.first == b.first && a.value < b.value); });
  std::vector<int> busy_until;  // per buffer: last step of its current value (-1 free)
  int S = static_cast<int>(groups.size());
  for (int s = 0; s < S; s++) {
    // buffers whose value was last read before step s are free (a buffer read at s cannot be written at s)
    int64_t live = 0;
    for (auto &sl : plan.slots) {
      if (sl.first != s) continue;
      sl.buffer = assign_buffer(plan.buffer_bytes, busy_until, sl.bytes, sl.first, sl.last);
    }
    for (auto &sl : plan.slots)
      if (sl.first <= s && sl.last >= s) live += sl.bytes;
    plan.max_live_bytes = std::max(plan.max_live_bytes, live);
  }
  for (auto b : plan.buffer_bytes) plan.peak_bytes += b;
  return plan;
}

ScheduleChoice default_choice(const tetune::Task &task, const CompileOptions &options) {
  if (options.plain_default_schedule)
    return {Schedule(task.outputs), ScheduleSource::Analytical, "bare schedule (plain_default_schedule: no parallel, no vectorize)"};
  return autotune::default_schedule(task, options.untuned);
}

ScheduleChoice choose_schedule(const tetune::Task &task, const CompileOptions &options) {
  return options.schedule_for ? options.schedule_for(task) : default_choice(task, options);
}

int &SourceCounts::operator[](ScheduleSource s) {
  switch (s) {
    case ScheduleSource::Record: return record;
    case ScheduleSource::CostModel: return cost_model;
    case ScheduleSource::Analytical: return analytical;
  }
  return analytical;
}

int SourceCounts::operator[](ScheduleSource s) const { return const_cast<SourceCounts &>(*this)[s]; }

std::string format_source_counts(const SourceCounts &c) {
  return std::to_string(c.record) + " " + source_name(ScheduleSource::Record) + ", " + std::to_string(c.cost_model) + " " +
         source_name(ScheduleSource::CostModel) + ", " + std::to_string(c.analytical) + " " +
         source_name(ScheduleSource::Analytical);
}

std::string format_task_schedules(const std::vector<TaskSchedule> &tasks) {
  std::vector<std::string> names;
  size_t name_w = 0, source_w = 0;
  for (const auto &t : tasks) {
    names.push_back(t.group + (t.groups > 1 ? " (x" + std::to_string(t.groups) + ")" : ""));
    name_w = std::max(name_w, names.back().size());
    source_w = std::max(source_w, source_name(t.source).size());
  }
  std::ostringstream os;
  for (size_t i = 0; i < tasks.size(); i++) {
    std::string source = source_name(tasks[i].source);
    os << "  " << names[i] << std::string(name_w - names[i].size() + 2, ' ') << source
       << std::string(source_w - source.size() + 2, ' ') << tasks[i].detail << "\n";
  }
  return os.str();
}

namespace {

CompiledModel build(Graph g, const CompileOptions &options, bool kernels, CompiledModel *out,
                    std::vector<std::shared_ptr<Kernel>> *ks, std::vector<std::vector<int>> *release,
                    std::vector<FusedGroup> *groups_out, MemoryPlan *plan, CompileStats *stats, Graph *graph_out) {
  double t0 = now_s();
  run_graph_passes(g, options, stats);
  std::vector<FusedGroup> groups = fuse_graph(g, options.fusion);
  for (auto &grp : groups) build_group(g, grp, options.target, options.threads);
  stats->passes_s = now_s() - t0;
  stats->groups = static_cast<int>(groups.size());
  std::set<std::string> keys;
  for (auto &grp : groups) {
    if (grp.kind == FusedGroup::View) stats->view_groups++;
    else if (grp.kind == FusedGroup::Kernel) {
      stats->kernel_groups++;
      keys.insert(grp.task.workload_key);
    }
  }
  stats->unique_workloads = static_cast<int>(keys.size());
  *plan = plan_memory(g, groups);
  // release lists
  release->assign(groups.size(), {});
  {
    std::set<int> keep(g.outputs.begin(), g.outputs.end());
    for (int v : g.inputs) keep.insert(v);
    std::map<int, int> last;
    for (int s = 0; s < static_cast<int>(groups.size()); s++)
      for (int n : groups[s].nodes)
        for (int v : g.nodes[n].inputs)
          if (v >= 0 && !g.values[v].is_const()) last[v] = s;
    for (auto &kv : last)
      if (!keep.count(kv.first)) (*release)[kv.second].push_back(kv.first);
  }
  ks->assign(groups.size(), nullptr);
  if (kernels) {
    double t1 = now_s();
    struct Built {
      std::shared_ptr<Kernel> kernel;
      int task = 0;  // index into stats->task_schedules
      std::vector<PrepackedInput> prepacked;
    };
    std::map<std::string, Built> cache;
    WeightPacker packer(g);
    for (size_t i = 0; i < groups.size(); i++) {
      auto &grp = groups[i];
      if (grp.kind != FusedGroup::Kernel) continue;
      auto it = cache.find(grp.task.workload_key);
      if (it != cache.end()) {
        (*ks)[i] = it->second.kernel;
        packer.bind(grp, it->second.prepacked);
        TaskSchedule &ts = stats->task_schedules[it->second.task];
        ts.groups++;
        stats->group_sources[ts.source]++;
        continue;
      }
      try {
        ScheduleChoice c = choose_schedule(grp.task, options);
        BuildOptions bo;
        bo.prepacked = weights_to_prepack(c.schedule, grp.task, options.prepack_weights);
        bo.prefetch_packed = options.prefetch_packed;
        auto k = std::make_shared<Kernel>(Kernel::build(c.schedule, options.target, bo));
        cache[grp.task.workload_key] = {k, static_cast<int>(stats->task_schedules.size()), bo.prepacked};
        packer.bind(grp, bo.prepacked);
        (*ks)[i] = k;
        stats->kernels_built++;
        stats->task_sources[c.source]++;
        stats->group_sources[c.source]++;
        stats->task_schedules.push_back({grp.name, grp.task.workload_key, 1, c.source, c.detail});
      } catch (const Error &e) {
        throw CodegenError("group " + grp.name + " (workload " + grp.task.workload_key + "): " + e.what());
      }
    }
    packer.release_unread(groups);
    stats->prepacked_weights = packer.packed();
    stats->prepacked_bytes = packer.packed_bytes();
    stats->build_s = now_s() - t1;
  }
  *groups_out = std::move(groups);
  *graph_out = std::move(g);
  (void)out;
  return CompiledModel();
}

}  // namespace

CompiledModel compile_model(Graph g, const CompileOptions &options) {
  CompiledModel m;
  build(std::move(g), options, true, &m, &m.kernels_, &m.release_after_, &m.groups_, &m.plan_, &m.stats_, &m.graph_);
  m.dynamic_ = dynamic_axes(m.graph_);
  return m;
}

CompiledModel compile_groups_only(Graph g, const CompileOptions &options) {
  CompiledModel m;
  build(std::move(g), options, false, &m, &m.kernels_, &m.release_after_, &m.groups_, &m.plan_, &m.stats_, &m.graph_);
  m.dynamic_ = dynamic_axes(m.graph_);
  return m;
}

std::vector<std::string> CompiledModel::input_names() const {
  std::vector<std::string> r;
  for (int v : graph_.inputs) r.push_back(graph_.values[v].name);
  return r;
}

std::vector<std::string> CompiledModel::output_names() const {
  std::vector<std::string> r;
  for (int v : graph_.outputs) r.push_back(graph_.values[v].name);
  return r;
}

std::vector<NDArray> CompiledModel::run(const std::vector<NDArray> &inputs) const {
  const Graph &g = graph_;
  if (inputs.size() != g.inputs.size())
    throw ShapeError("model expects " + std::to_string(g.inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::map<int, NDArray> env;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Value &v = g.values[g.inputs[i]];
    if (inputs[i].shape() != v.shape)
      throw ShapeError("input '" + v.name + "': expected shape " + shape_str(v.shape) + ", got " + shape_str(inputs[i].shape()));
    if (inputs[i].dtype() != v.dtype)
      throw ShapeError("input '" + v.name + "': expected dtype " + v.dtype.str() + ", got " + inputs[i].dtype().str());
    env[g.inputs[i]] = inputs[i];
  }
  auto get = [&](int v) -> const NDArray & {
    auto it = env.find(v);
    if (it != env.end()) return it->second;
    if (g.values[v].is_const()) return *g.values[v].data;
    throw RuntimeError("value '" + g.values[v].name + "' is not available (internal error)");
  };
  std::map<int, int64_t> count;  // host-op output value -> its real extent along the dynamic axis
  auto trimmed = [&](int v) -> NDArray {
    const NDArray &a = get(v);
    const DynamicAxis &d = dynamic_[v];
    return d.axis < 0 ? a : take_leading(a, d.axis, count.at(d.source));
  };
  group_times_.assign(groups_.size(), 0.0);
  for (size_t s = 0; s < groups_.size(); s++) {
    const FusedGroup &grp = groups_[s];
    double t0 = now_s();
    if (grp.kind == FusedGroup::View) {
      const Node &n = g.nodes[grp.nodes.at(0)];
      int out = n.outputs.at(0);
      env[out] = get(n.inputs.at(0)).reshaped(g.values[out].shape);
    } else if (grp.kind == FusedGroup::Host) {
      // data-dependent op: exact inputs in, outputs padded to their bound (host_ops.h)
      const Node &n = g.nodes[grp.nodes.at(0)];
      std::vector<NDArray> ins;
      for (int v : n.inputs) ins.push_back(v < 0 ? NDArray() : trimmed(v));
      std::vector<NDArray> outs = run_host_op(n, ins);
      for (size_t k = 0; k < n.outputs.size() && k < outs.size(); k++) {
        int o = n.outputs[k];
        if (o < 0) continue;
        if (dynamic_[o].axis >= 0) count[o] = outs[k].shape().at(dynamic_[o].axis);
        env[o] = pad_to(outs[k], g.values[o].shape);
      }
    } else {
      if (!kernels_[s]) throw RuntimeError("model was compiled without kernels (compile_groups_only)");
      std::vector<NDArray> args;
      args.reserve(grp.input_values.size());
      for (int v : grp.input_values) args.push_back(get(v));
      std::vector<NDArray> outs;
      for (int v : grp.outputs) outs.emplace_back(g.values[v].shape, g.values[v].dtype);
      kernels_[s]->run(args, outs);
      for (size_t k = 0; k < grp.outputs.size(); k++) env[grp.outputs[k]] = std::move(outs[k]);
    }
    for (int v : release_after_[s]) env.erase(v);
    group_times_[s] = now_s() - t0;
  }
  std::vector<NDArray> res;
  for (int v : g.outputs) res.push_back(trimmed(v));
  return res;
}

std::map<std::string, NDArray> CompiledModel::run(const std::map<std::string, NDArray> &inputs) const {
  std::vector<NDArray> in;
  for (int v : graph_.inputs) {
    auto it = inputs.find(graph_.values[v].name);
    if (it == inputs.end()) throw ShapeError("input '" + graph_.values[v].name + "' is missing");
    in.push_back(it->second);
  }
  for (auto &kv : inputs) {
    bool known = false;
    for (int v : graph_.inputs) known |= graph_.values[v].name == kv.first;
    if (!known) throw ShapeError("unknown input '" + kv.first + "'");
  }
  auto out = run(in);
  std::map<std::string, NDArray> r;
  for (size_t i = 0; i < out.size(); i++) r[graph_.values[graph_.outputs[i]].name] = out[i];
  return r;
}

namespace {
std::string esc(const std::string &s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}
}  // namespace

std::string CompiledModel::to_dot() const {
  const Graph &g = graph_;
  std::ostringstream os;
  os << "digraph fused {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n";
  std::map<int, int> producer_group;
  for (size_t s = 0; s < groups_.size(); s++)
    for (int v : groups_[s].outputs) producer_group[v] = static_cast<int>(s);
  for (int v : g.inputs)
    os << "  v" << v << " [shape=ellipse, label=\"" << esc(g.values[v].name) << "\\n" << shape_str(g.values[v].shape) << "\"];\n";
  for (size_t s = 0; s < groups_.size(); s++) {
    const auto &grp = groups_[s];
    std::string ops;
    for (int n : grp.nodes) ops += (ops.empty() ? "" : " + ") + g.nodes[n].op;
    os << "  g" << s << " [label=\"" << esc(grp.name) << "\\n" << esc(ops);
    if (grp.kind == FusedGroup::Kernel) os << "\\nkey " << grp.task.workload_key;
    os << "\"" << (grp.kind == FusedGroup::View ? ", style=dashed" : "") << "];\n";
  }
  for (size_t s = 0; s < groups_.size(); s++) {
    std::set<int> seen;
    std::set<int> inside;
    for (int n : groups_[s].nodes)
      for (int o : g.nodes[n].outputs) inside.insert(o);
    for (int n : groups_[s].nodes)
      for (int v : g.nodes[n].inputs) {
        // Constants (and those whose data was packed away, with no producer) get no edge.
        if (v < 0 || inside.count(v) || g.values[v].is_const() || !seen.insert(v).second) continue;
        if (!g.values[v].is_input && !producer_group.count(v)) continue;
        std::string src = g.values[v].is_input ? "v" + std::to_string(v) : "g" + std::to_string(producer_group.at(v));
        os << "  " << src << " -> g" << s << " [label=\"" << shape_str(g.values[v].shape) << "\", fontsize=8];\n";
      }
  }
  for (int v : g.outputs) {
    os << "  out" << v << " [shape=ellipse, label=\"" << esc(g.values[v].name) << "\\n" << shape_str(g.values[v].shape) << "\"];\n";
    if (producer_group.count(v)) os << "  g" << producer_group[v] << " -> out" << v << ";\n";
  }
  os << "}\n";
  return os.str();
}

std::string CompiledModel::summary() const {
  std::ostringstream os;
  const auto &s = stats_;
  os << "graph: " << graph_.source << " (opset " << graph_.opset << ")\n";
  os << "nodes: " << s.nodes_imported << " imported, " << s.nodes_after_passes << " after passes (" << s.folded_batch_norms
     << " batch norms folded, " << s.affine_batch_norms << " as Mul + Add, " << s.fused_layer_norms << " layer norms fused, " << s.transposes_as_views << " transposes as views, " << s.cse_removed << " CSE, " << s.dce_removed << " DCE)\n";
  os << "layout: " << s.blocked_convs << " convs in NCHW[b]c (" << s.winograd_convs << " by Winograd: "
     << s.winograd_f4_convs << " F(4x4, 3x3), " << s.winograd_convs - s.winograd_f4_convs << " F(2x2, 3x3)), "
     << s.layout_transforms << " layout transforms\n";
  os << format_conv_forms(s.conv_forms);
  os << "groups: " << s.groups << " (" << s.kernel_groups << " kernels, " << s.view_groups << " views), "
     << s.unique_workloads << " unique workloads\n";
  os << "weights: " << graph_.weight_bytes() + s.prepacked_bytes << " bytes (" << s.prepacked_weights
     << " constants, " << s.prepacked_bytes << " bytes, packed once for their kernels), " << s.flushed_subnormals
     << " subnormal elements flushed to zero\n";
  os << "memory: peak " << plan_.peak_bytes << " bytes with reuse (" << plan_.buffer_bytes.size() << " buffers), "
     << plan_.no_reuse_bytes << " without, max live " << plan_.max_live_bytes << "\n";
  for (size_t i = 0; i < groups_.size(); i++) {
    const auto &grp = groups_[i];
    os << "  " << grp.name;
    if (grp.kind == FusedGroup::Kernel) os << "  key=" << grp.task.workload_key << " gflop=" << grp.task.flops / 1e9;
    os << "  ->";
    for (int v : grp.outputs) os << " " << shape_str(graph_.values[v].shape);
    os << "\n";
  }
  return os.str();
}

}  // namespace relay
}  // namespace tetune
