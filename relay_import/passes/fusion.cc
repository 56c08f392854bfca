#include "relay_import/passes/fusion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "relay_import/lowering.h"
#include "schedule/schedule.h"
#include "base/errors.h"

namespace tetune {
namespace relay {

namespace {

struct Builder {
  const Graph &g;
  std::vector<int> group_of;                 // node -> group
  std::vector<std::vector<int>> members;     // group -> nodes
  std::vector<OpPattern> kind;               // group -> pattern of its first node

  int producer_group(int v) const {
    if (v < 0) return -1;
    int p = g.values[v].producer;
    return p < 0 ? -1 : group_of[p];
  }

  // True when group `from` reaches group `target` through group-level edges.
  bool depends_on(int from, int target) const {
    std::vector<char> seen(members.size(), 0);
    std::vector<int> st{from};
    while (!st.empty()) {
      int h = st.back();
      st.pop_back();
      if (h == target) return true;
      if (seen[h]) continue;
      seen[h] = 1;
      for (int n : members[h])
        for (int v : g.nodes[n].inputs) {
          int pg = producer_group(v);
          if (pg >= 0 && pg != h && !seen[pg]) st.push_back(pg);
        }
    }
    return false;
  }
};

// Ops that only move elements, one data input (the rest constant), each output element a copy.
bool moves_data_only(const std::string &op) { return op == "Transpose" || op == "Split" || op == "Slice"; }

// Whether n reads one data value, its first input (any others are constants).
bool one_data_input(const Graph &g, const Node &n) {
  if (n.inputs.empty() || n.inputs[0] < 0) return false;
  for (size_t i = 1; i < n.inputs.size(); i++)
    if (n.inputs[i] >= 0 && !g.values[n.inputs[i]].is_const()) return false;
  return true;
}

// The group that data-movement node n joins, or -1: its data input's producer group when that
// group only moves data too and nothing else reads the value (a Transpose then a Split: one
// kernel reads the input once and writes the pieces, with no transposed copy in between).
// View nodes between them (the Reshape from a Slice of K to its heads, then their Transpose:
// ViT's attention) are looked through when each one's output is read by the next alone and the
// group is one node; they are returned in `views`, producer first, to join the group too. (A
// Transpose of one piece of BERT's Transpose then Split, past a Squeeze, ran 2x slower in that
// kernel than alone: its pieces then leave in different axis orders.)
int data_movement_producer(const Graph &g, const ValueReaders &readers, const Builder &b, const Node &n,
                           const FusionOptions &options, std::vector<int> &views) {
  views.clear();
  auto none = [&] {
    views.clear();
    return -1;
  };
  if (!one_data_input(g, n)) return none();
  int v = n.inputs[0];
  if (readers.only(g, v) < 0) return none();
  for (int vg = b.producer_group(v); vg >= 0 && b.kind[vg] == OpPattern::View; vg = b.producer_group(v)) {
    const int p = g.values[v].producer;
    const Node &view = g.nodes[p];
    if (!one_data_input(g, view) || view.outputs.size() != 1) return none();  // (a View group is its one node)
    views.insert(views.begin(), p);
    v = view.inputs[0];
    if (readers.only(g, v) < 0) return none();
  }
  const int G = b.producer_group(v);
  if (G < 0 || b.kind[G] != OpPattern::Injective || static_cast<int>(b.members[G].size()) >= options.max_group_nodes ||
      (!views.empty() && b.members[G].size() != 1))
    return none();
  for (int m : b.members[G])
    if (!moves_data_only(g.nodes[m].op)) return none();
  return G;
}

}  // namespace

std::vector<FusedGroup> fuse_graph(const Graph &g, const FusionOptions &options) {
  Builder b{g, std::vector<int>(g.nodes.size(), -1), {}, {}};
  const ValueReaders readers(g);
  std::vector<int> order = g.topo_order();
  for (int id : order) {
    const Node &n = g.nodes[id];
    OpPattern p = op_pattern(n);
    int join = -1;
    if (options.fuse && p == OpPattern::Elemwise && !n.outputs.empty() && n.outputs[0] >= 0) {
      const Shape &out = g.values[n.outputs[0]].shape;
      for (int v : n.inputs) {
        int G = b.producer_group(v);
        if (G < 0 || b.kind[G] == OpPattern::View || b.kind[G] == OpPattern::Host) continue;
        if (g.values[v].shape != out) continue;
        if (static_cast<int>(b.members[G].size()) >= options.max_group_nodes) continue;
        bool ok = true;
        for (int u : n.inputs) {
          int H = b.producer_group(u);
          if (H < 0 || H == G) continue;
          if (b.depends_on(H, G)) ok = false;
        }
        if (ok) {
          join = G;
          break;
        }
      }
    }
    if (join < 0 && options.fuse && moves_data_only(n.op)) {
      std::vector<int> views;
      join = data_movement_producer(g, readers, b, n, options, views);
      for (int view : views) {  // out of its own (now empty) group, into the kernel
        b.members[b.group_of[view]].clear();
        b.group_of[view] = join;
        b.members[join].push_back(view);
      }
    }
    if (join < 0) {
      join = static_cast<int>(b.members.size());
      b.members.emplace_back();
      b.kind.push_back(p);
    }
    b.group_of[id] = join;
    b.members[join].push_back(id);
  }
  // Group order: a topological order of the group DAG (groups were created in
  // topological order of their first node, but a later member may read a
  // group created after the group's first node), so sort.
  int G = static_cast<int>(b.members.size());
  std::vector<std::set<int>> deps(G);
  for (int h = 0; h < G; h++)
    for (int n : b.members[h])
      for (int v : g.nodes[n].inputs) {
        int pg = b.producer_group(v);
        if (pg >= 0 && pg != h) deps[h].insert(pg);
      }
  std::vector<int> gorder, state(G, 0);
  std::function<void(int)> visit = [&](int h) {
    if (state[h] == 2) return;
    if (state[h] == 1) throw Error("fusion produced a cycle between groups (internal error)");
    state[h] = 1;
    for (int d : deps[h]) visit(d);
    state[h] = 2;
    gorder.push_back(h);
  };
  for (int h = 0; h < G; h++) visit(h);

  auto consumers = g.consumers();
  std::set<int> graph_outs(g.outputs.begin(), g.outputs.end());
  std::vector<FusedGroup> groups;
  for (int h : gorder) {
    if (b.members[h].empty()) continue;  // a view that joined a data-movement kernel
    FusedGroup fg;
    fg.kind = b.kind[h] == OpPattern::View ? FusedGroup::View : b.kind[h] == OpPattern::Host ? FusedGroup::Host : FusedGroup::Kernel;
    fg.nodes = b.members[h];
    std::set<int> in_group(fg.nodes.begin(), fg.nodes.end());
    fg.name = "g" + std::to_string(groups.size());
    for (int n : fg.nodes) {
      if (fg.name.size() < 64) fg.name += "_" + g.nodes[n].op;
      for (int o : g.nodes[n].outputs) {
        if (o < 0) continue;
        bool external = graph_outs.count(o) != 0;
        for (int c : consumers[o]) external |= !in_group.count(c);
        if (external) fg.outputs.push_back(o);
      }
    }
    groups.push_back(std::move(fg));
  }
  return groups;
}

void build_group(const Graph &g, FusedGroup &group, const Target &target, int threads) {
  if (group.kind != FusedGroup::Kernel) return;
  std::map<int, Tensor> produced;    // value -> tensor computed in the group
  std::map<int, Tensor> params;      // value -> placeholder
  std::map<const TensorNode *, int> param_value;
  for (int id : group.nodes) {
    const Node &n = g.nodes[id];
    auto get = [&](int i) -> Tensor {
      int v = n.inputs[i];
      auto it = produced.find(v);
      if (it != produced.end()) return it->second;
      auto pt = params.find(v);
      if (pt != params.end()) return pt->second;
      const Value &val = g.values[v];
      std::string nm;
      for (char c : val.name) nm += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
      if (nm.size() > 40) nm = nm.substr(nm.size() - 40);
      Tensor t = placeholder(val.shape, val.dtype, nm.empty() ? "p" : nm);
      params[v] = t;
      param_value[t.node().get()] = v;
      return t;
    };
    LowerContext ctx(g, n, get);
    std::vector<Tensor> outs = lower_node(ctx);
    for (size_t k = 0; k < n.outputs.size() && k < outs.size(); k++)
      if (n.outputs[k] >= 0) produced[n.outputs[k]] = outs[k];
  }
  group.te_outputs.clear();
  for (int o : group.outputs) {
    auto pit = produced.find(o);
    if (pit == produced.end())
      throw Error("group " + group.name + ": output '" + g.values[o].name + "' is not produced by its nodes (internal error)");
    Tensor t = pit->second;
    if (t.is_placeholder()) throw Error("group " + group.name + ": output '" + g.values[o].name + "' is not computed");
    group.te_outputs.push_back(t);
  }
  // a tensor may be listed twice (two values, one tensor) only once in a Schedule: keep outputs distinct
  group.task = tetune::make_task(group.name, group.te_outputs, target, threads);
  group.input_values.clear();
  Schedule sched(group.te_outputs);
  for (const Tensor &t : sched.inputs()) {
    auto it = param_value.find(t.node().get());
    if (it == param_value.end())
      throw Error("group " + group.name + ": kernel input '" + t.name() + "' is not a group input (internal error)");
    if (g.values[it->second].is_const()) group.task.constant_inputs.push_back(static_cast<int>(group.input_values.size()));
    group.input_values.push_back(it->second);
  }
}

}  // namespace relay
}  // namespace tetune
