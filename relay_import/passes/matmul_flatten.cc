#include "relay_import/passes/matmul_flatten.h"

#include <algorithm>
#include <map>
#include <set>

#include "relay_import/passes/elementwise_ops.h"

namespace tetune {
namespace relay {

namespace {

// The elementwise ops carried along in [P, N]: Pow too (tanh-approximated GELU's x^3).
bool chain_op(const std::string &op) { return op == "Pow" || broadcasting_elementwise_ops().count(op); }

// An operand that broadcasts the same against [..., N] and [P, N]: rank <= 1, or
// a constant with only 1s before its last axis (as_vector re-makes it rank 1).
bool vector_operand(const Graph &g, int v, int64_t N) {
  const Value &val = g.values[v];
  if (!val.shape_known) return false;
  if (val.shape.size() <= 1) return true;
  for (size_t d = 0; d + 1 < val.shape.size(); d++)
    if (val.shape[d] != 1) return false;
  return val.is_const() && (val.shape.back() == 1 || val.shape.back() == N);
}

int as_vector(Graph &g, int v) {
  const Value val = g.values[v];
  if (val.shape.size() <= 1) return v;
  return g.add_const(val.name + ".vector", val.data->reshaped(Shape{val.shape.back()}));
}

bool flatten(Graph &g, int id) {
  const Node mm = g.nodes[id];
  if (mm.dead || mm.op != "MatMul" || mm.inputs.size() != 2 || mm.outputs.size() != 1 || mm.outputs[0] < 0) return false;
  const Value a = g.values[mm.inputs[0]], b = g.values[mm.inputs[1]], y = g.values[mm.outputs[0]];
  if (!a.shape_known || !b.shape_known || !y.shape_known || a.dtype != float32() || b.shape.size() != 2 || a.shape.size() < 3)
    return false;
  int64_t P = 1;
  for (size_t d = 0; d + 1 < a.shape.size(); d++) P *= a.shape[d];
  if (P == a.shape[a.shape.size() - 2]) return false;  // leading 1s only: already one GEMM
  const int64_t K = a.shape.back(), N = b.shape[1];
  const Shape full = y.shape;

  // The chain, producers first: the MatMul, then each elementwise op of output shape `full`
  // that reads a chain value and otherwise only vectors along N.
  std::vector<int> chain = {id};
  std::set<int> values = {mm.outputs[0]};
  for (int r : g.topo_order()) {
    const Node &n = g.nodes[r];
    if (!chain_op(n.op) || n.outputs.size() != 1 || n.outputs[0] < 0 || g.values[n.outputs[0]].shape != full)
      continue;
    bool reads_chain = false, others_are_vectors = true;
    for (int in : n.inputs) {
      if (in >= 0 && values.count(in)) reads_chain = true;
      else others_are_vectors &= in >= 0 && vector_operand(g, in, N);
    }
    if (!reads_chain || !others_are_vectors) continue;
    chain.push_back(r);
    values.insert(n.outputs[0]);
  }

  // Rewrite: A viewed as [P, K]; each chain value v gets a [P, N] twin that the chain reads,
  // and v itself, where anything else reads it, becomes a view of that twin.
  const std::vector<std::vector<int>> readers = g.consumers();
  const std::set<int> in_chain(chain.begin(), chain.end());
  const int rows = g.add_reshape(mm.inputs[0], Shape{P, K}, a.name + ".rows");
  g.nodes[id].inputs[0] = rows;
  std::map<int, int> twin;
  for (int r : chain) {
    Node &n = g.nodes[r];
    for (int &in : n.inputs)
      if (twin.count(in)) in = twin.at(in);
      else if (r != id) in = as_vector(g, in);
    const int v = g.nodes[r].outputs[0];
    const Value val = g.values[v];
    const int flat = g.add_value(val.name + ".rows", Shape{P, N}, val.dtype, true);
    g.nodes[r].outputs[0] = flat;
    g.values[flat].producer = r;
    twin[v] = flat;
    bool read_outside = std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
    for (int reader : readers[v]) read_outside |= !in_chain.count(reader);
    if (read_outside) g.add_reshape(flat, full, val.name, v);  // v keeps its name, shape and readers
    else g.values[v].producer = -1;
  }
  return true;
}

}  // namespace

int flatten_batched_matmuls(Graph &g) {
  int n = 0;
  const size_t before = g.nodes.size();  // nodes added on the way are Reshapes
  for (size_t id = 0; id < before; id++) n += flatten(g, static_cast<int>(id));
  return n;
}

}  // namespace relay
}  // namespace tetune
