#include "relay_import/expansion.h"

#include <algorithm>
#include <map>

#include "base/errors.h"

namespace tetune {
namespace relay {

Expander::Expander(Graph &g, int id, std::function<void(int)> infer) : g_(g), node_(g.nodes.at(id)), infer_(std::move(infer)) {
  g_.nodes[id].dead = true;
}

std::string Expander::where() const {
  return node_.op + " node '" + node_.name + "' (opset " + std::to_string(g_.opset) + ")";
}

void Expander::fail(const std::string &msg) const { throw ImportError(where() + ": " + msg); }
void Expander::unsupported(const std::string &what) const { fail("unsupported " + what); }
void Expander::shape_fail(const std::string &msg) const { throw ShapeError(where() + ": " + msg); }
void Expander::attr_fail(const std::string &msg) const { throw AttributeError(where() + ": " + msg); }

int Expander::input(int i) const { return i < static_cast<int>(node_.inputs.size()) ? node_.inputs[i] : -1; }
int Expander::output(int i) const { return i < static_cast<int>(node_.outputs.size()) ? node_.outputs[i] : -1; }

int Expander::constant(const NDArray &a, const std::string &what) {
  return g_.add_const(node_.name + "/" + what + "_" + std::to_string(counter_++), a);
}

int Expander::int_const(const std::vector<int64_t> &v, bool scalar) {
  if (scalar && v.size() != 1) throw Error("Expander::int_const: a scalar needs one value (internal error)");
  NDArray a(scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())}, int64());
  for (size_t k = 0; k < v.size(); k++) a.data<int64_t>()[k] = v[k];
  return constant(a, "c");
}

std::vector<int> Expander::emit(const std::string &op, const std::vector<int> &inputs, const Attrs &attrs,
                                const std::vector<int> &outputs) {
  // Nested loops multiply: bound the graph an unrolling may build (malformed or adversarial trip counts).
  if (g_.nodes.size() >= kMaxExpandedNodes)
    unsupported("unrolling beyond " + std::to_string(kMaxExpandedNodes) + " graph nodes");
  Node n;
  n.op = op;
  n.name = node_.name + "/" + std::to_string(counter_++) + "_" + op;
  n.attrs = attrs;
  n.inputs = inputs;
  for (size_t k = 0; k < outputs.size(); k++)
    n.outputs.push_back(outputs[k] >= 0 ? outputs[k] : g_.add_value(n.name + ":" + std::to_string(k)));
  std::vector<int> outs = n.outputs;
  int id = g_.add_node(std::move(n));
  infer_(id);
  return outs;
}

int Expander::take(int v, int64_t index, int axis) {
  return emit1("Gather", {v, int_const({index}, true)}, {{"axis", Attr::of_int(axis)}});
}

int Expander::reshape(int v, const Shape &s, int out) { return emit1("Reshape", {v, int_const(s)}, {}, out); }

int Expander::stack(const std::vector<int> &vs, int axis, int out) {
  if (vs.empty()) throw Error("Expander::stack: nothing to stack (internal error)");
  Shape s = shape(vs[0]);
  s.insert(s.begin() + axis, 1);
  if (vs.size() == 1) return reshape(vs[0], s, out);
  std::vector<int> parts;
  for (int v : vs) parts.push_back(reshape(v, s));
  return emit1("Concat", parts, {{"axis", Attr::of_int(axis)}}, out);
}

void Expander::assign(int v, int out) { emit1("Identity", {v}, {}, out); }

namespace {
const std::map<std::string, void (*)(Expander &)> &expanders() {
  static const std::map<std::string, void (*)(Expander &)> m = {
      {"RNN", expansion::expand_recurrent}, {"LSTM", expansion::expand_recurrent}, {"GRU", expansion::expand_recurrent},
      {"If", expansion::expand_if},         {"Loop", expansion::expand_loop},      {"Scan", expansion::expand_scan},
  };
  return m;
}
}  // namespace

bool is_expanded_op(const std::string &op) {
  const auto &seq = expansion::sequence_ops();
  return expanders().count(op) != 0 || std::find(seq.begin(), seq.end(), op) != seq.end();
}

bool reads_non_tensor(const Graph &g, int id) {
  for (int v : g.nodes.at(id).inputs)
    if (v >= 0 && g.values.at(v).kind != Value::Kind::Tensor) return true;
  return false;
}

void expand_node(Graph &g, int id, const std::function<void(int)> &infer) {
  auto it = expanders().find(g.nodes.at(id).op);
  if (it != expanders().end()) {
    Expander e(g, id, infer);
    it->second(e);
  } else if (is_expanded_op(g.nodes[id].op)) {
    Expander e(g, id, infer);
    expansion::expand_sequence_op(e);
  } else if (reads_non_tensor(g, id)) {
    Expander e(g, id, infer);
    expansion::expand_non_tensor_reader(e);
  } else {
    throw Error("expand_node: '" + g.nodes[id].op + "' is not expanded (internal error)");
  }
}

}  // namespace relay
}  // namespace tetune
