#include "relay_import/passes/dead_code.h"

#include <vector>

namespace tetune {
namespace relay {

int eliminate_dead_code(Graph &g) {
  std::vector<char> live_val(g.values.size(), 0), live_node(g.nodes.size(), 0);
  std::vector<int> stack(g.outputs.begin(), g.outputs.end());
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    if (v < 0 || live_val[v]) continue;
    live_val[v] = 1;
    int p = g.values[v].producer;
    if (p < 0 || g.nodes[p].dead || live_node[p]) continue;
    live_node[p] = 1;
    for (int i : g.nodes[p].inputs) stack.push_back(i);
  }
  int removed = 0;
  for (size_t i = 0; i < g.nodes.size(); i++)
    if (!g.nodes[i].dead && !live_node[i]) {
      g.nodes[i].dead = true;
      removed++;
    }
  g.compact();
  return removed;
}

}  // namespace relay
}  // namespace tetune
