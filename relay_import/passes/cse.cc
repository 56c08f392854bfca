#include "relay_import/passes/cse.h"

#include <cstring>
#include <map>
#include <string>

namespace tetune {
namespace relay {

namespace {
std::string const_key(const Value &v) {
  std::string k = v.dtype.str() + "|" + shape_str(v.shape) + "|";
  k.append(static_cast<const char *>(v.data->raw()), static_cast<size_t>(v.data->nbytes()));
  return k;
}
}  // namespace

int eliminate_common_subexpressions(Graph &g) {
  // 1. merge equal small constants (<= 256 elements)
  std::map<std::string, int> consts;
  std::vector<int> canon(g.values.size());
  for (size_t i = 0; i < g.values.size(); i++) {
    canon[i] = static_cast<int>(i);
    const Value &v = g.values[i];
    if (!v.is_const() || v.data->size() > 256 || v.is_input) continue;
    auto r = consts.emplace(const_key(v), static_cast<int>(i));
    canon[i] = r.first->second;
  }
  bool outputs_const_merged = false;
  for (auto &n : g.nodes)
    for (int &v : n.inputs)
      if (v >= 0) v = canon[v];
  (void)outputs_const_merged;
  // 2. merge equal nodes
  int removed = 0;
  std::map<std::string, int> seen;
  for (int id : g.topo_order()) {
    Node &n = g.nodes[id];
    std::string key = n.op + "(";
    for (int v : n.inputs) key += std::to_string(v) + ",";
    key += ")";
    for (auto &kv : n.attrs) key += kv.first + "=" + kv.second.str() + ";";
    key += "#" + std::to_string(n.outputs.size());
    bool has_tensor_attr = false;
    for (auto &kv : n.attrs) has_tensor_attr |= kv.second.kind == Attr::Tensor;
    if (has_tensor_attr) continue;
    auto it = seen.find(key);
    if (it == seen.end()) {
      seen[key] = id;
      continue;
    }
    const Node &m = g.nodes[it->second];
    bool is_graph_out = false;
    for (int o : n.outputs)
      for (int go : g.outputs) is_graph_out |= o == go;
    if (is_graph_out) continue;  // keep graph outputs' names
    for (size_t k = 0; k < n.outputs.size(); k++)
      if (n.outputs[k] >= 0 && m.outputs[k] >= 0) g.replace_uses(n.outputs[k], m.outputs[k]);
    n.dead = true;
    removed++;
  }
  g.compact();
  return removed;
}

}  // namespace relay
}  // namespace tetune
