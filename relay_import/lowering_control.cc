// If, Loop and Scan: bodies inlined at import (see relay_import/expansion.h).
//  * If: a constant condition keeps one branch; otherwise both branches are
//    compiled and each output is Where(cond, then, else), which needs branch
//    outputs of equal shapes and dtypes (the branches have no side effects, so
//    computing both is only extra work).
//  * Loop: unrolled; the trip count and the loop condition must be constants
//    after folding at every iteration (a data-dependent count is unsupported).
//  * Scan: unrolled over the static scan length.
// Inlined nodes are ordinary graph nodes, so equal iterations get equal
// workload keys and share kernels.
// Source: ONNX operator spec, sections If, Loop, Scan (opsets 7..22).
#include <algorithm>
#include <map>

#include "base/errors.h"
#include "relay_import/expansion.h"
#include "relay_import/lowering.h"
#include "te/ops/common.h"

namespace tetune {
namespace relay {

namespace {

// Renames the free values (outer-scope references) of body and of the bodies
// nested in it that name a value in `names`.
void rename_free_values(Graph &body, const std::map<std::string, std::string> &names) {
  for (auto &v : body.values) {
    if (v.producer >= 0 || v.is_input || v.is_const()) continue;
    auto it = names.find(v.name);
    if (it != names.end()) v.name = it->second;
  }
  for (auto &n : body.nodes)
    for (auto &kv : n.attrs)
      if (kv.second.kind == Attr::Graph && kv.second.g) {
        auto copy = std::make_shared<Graph>(*kv.second.g);
        rename_free_values(*copy, names);
        kv.second.g = copy;
      }
}

const Graph &body_attr(Expander &e, const std::string &name) {
  auto it = e.node().attrs.find(name);
  if (it == e.node().attrs.end() || it->second.kind != Attr::Graph || !it->second.g)
    e.attr_fail("graph attribute '" + name + "' is missing");
  return *it->second.g;
}

/**
 * Adds a copy of body's nodes; body input k reads bind[k] and free values
 * read the enclosing scope's value of that name. Returns the value ids of
 * the body outputs.
 */
std::vector<int> inline_body(Expander &e, const Graph &body, const std::vector<int> &bind, const std::string &what) {
  Graph &g = e.graph();
  if (bind.size() != body.inputs.size())
    e.fail(what + " has " + std::to_string(body.inputs.size()) + " inputs, expected " + std::to_string(bind.size()));
  std::map<int, int> m;
  for (size_t k = 0; k < bind.size(); k++) m[body.inputs[k]] = bind[k];
  auto map_value = [&](int v) -> int {
    if (v < 0) return -1;
    auto it = m.find(v);
    if (it != m.end()) return it->second;
    const Value &bv = body.values[v];
    int r;
    if (bv.is_const()) {
      r = e.constant(*bv.data, "body_const");
    } else if (bv.producer < 0) {
      r = g.find_value(bv.name);
      if (r < 0) e.fail(what + " reads '" + bv.name + "', which no enclosing scope defines");
    } else {
      e.fail(what + ": value '" + bv.name + "' is read before it is computed (body not in topological order)");
    }
    return m[v] = r;
  };
  std::map<std::string, std::string> names;  // body value name -> graph value name, for nested bodies
  for (int id : body.topo_order()) {
    const Node &bn = body.nodes[id];
    std::vector<int> ins;
    for (int v : bn.inputs) ins.push_back(map_value(v));
    Attrs attrs = bn.attrs;
    bool nested = false;
    for (auto &kv : attrs) nested |= kv.second.kind == Attr::Graph;
    if (nested) {
      for (auto &kv : m)
        if (kv.second >= 0) names[body.values[kv.first].name] = g.values[kv.second].name;
      for (auto &kv : attrs)
        if (kv.second.kind == Attr::Graph && kv.second.g) {
          auto copy = std::make_shared<Graph>(*kv.second.g);
          rename_free_values(*copy, names);
          kv.second.g = copy;
        }
    }
    std::vector<int> outs = e.emit(bn.op, ins, attrs, std::vector<int>(bn.outputs.size(), -1));
    for (size_t k = 0; k < bn.outputs.size(); k++)
      if (bn.outputs[k] >= 0) m[bn.outputs[k]] = outs[k];
  }
  std::vector<int> r;
  for (int v : body.outputs) r.push_back(map_value(v));
  return r;
}

NDArray bool_scalar(bool v) {
  NDArray a(Shape{}, boolean());
  a.set(0, v ? 1 : 0);
  return a;
}

// Scalar value of constant v (one element); ImportError via e otherwise.
double const_scalar(Expander &e, int v, const std::string &what) {
  const Value &val = e.value(v);
  if (!val.is_const()) e.unsupported(what + " that is not a compile-time constant (a data-dependent iteration count)");
  if (val.data->size() != 1) e.shape_fail(what + " has " + std::to_string(val.data->size()) + " elements, expected 1");
  return val.data->get(0);
}

}  // namespace

namespace expansion {

void expand_if(Expander &e) {
  int cond = e.input(0);
  if (cond < 0) e.fail("input cond is required");
  const Graph &then_b = body_attr(e, "then_branch"), &else_b = body_attr(e, "else_branch");
  size_t nout = e.node().outputs.size();
  if (then_b.outputs.size() != nout || else_b.outputs.size() != nout)
    e.fail("branches give " + std::to_string(then_b.outputs.size()) + " and " + std::to_string(else_b.outputs.size()) +
           " outputs, the node has " + std::to_string(nout));
  if (e.value(cond).is_const()) {
    bool c = const_scalar(e, cond, "condition") != 0;
    std::vector<int> outs = inline_body(e, c ? then_b : else_b, {}, c ? "then_branch" : "else_branch");
    for (size_t k = 0; k < nout; k++)
      if (e.output(static_cast<int>(k)) >= 0) e.assign(outs[k], e.output(static_cast<int>(k)));
    return;
  }
  if (!e.value(cond).dtype.is_bool()) e.fail("cond has dtype " + e.value(cond).dtype.str() + ", expected bool");
  if (checked_num_elements(e.shape(cond), 2) != 1) e.shape_fail("cond has shape " + shape_str(e.shape(cond)) + ", expected one element");
  std::vector<int> t = inline_body(e, then_b, {}, "then_branch"), f = inline_body(e, else_b, {}, "else_branch");
  int c = e.shape(cond).empty() ? cond : e.reshape(cond, {});
  for (size_t k = 0; k < nout; k++) {
    int out = e.output(static_cast<int>(k));
    if (out < 0) continue;
    if (e.value(t[k]).kind != Value::Kind::Tensor || e.value(f[k]).kind != Value::Kind::Tensor) {
      select_structured(e, c, t[k], f[k], out);  // sequences / optionals: element by element
      continue;
    }
    if (e.shape(t[k]) != e.shape(f[k]) || e.value(t[k]).dtype != e.value(f[k]).dtype)
      e.unsupported("If with a run-time condition whose branches give different shapes or dtypes for output " +
                    std::to_string(k) + " (" + e.value(t[k]).dtype.str() + shape_str(e.shape(t[k])) + " and " +
                    e.value(f[k]).dtype.str() + shape_str(e.shape(f[k])) + ")");
    e.emit1("Where", {c, t[k], f[k]}, {}, out);
  }
}

void expand_loop(Expander &e) {
  const Graph &body = body_attr(e, "body");
  int m = e.input(0), cond = e.input(1);
  size_t n_carried = e.node().inputs.size() < 2 ? 0 : e.node().inputs.size() - 2;
  if (body.inputs.size() != n_carried + 2)
    e.fail("body has " + std::to_string(body.inputs.size()) + " inputs, expected " + std::to_string(n_carried + 2) +
           " (iteration, condition, " + std::to_string(n_carried) + " loop-carried)");
  if (body.outputs.size() < n_carried + 1)
    e.fail("body has " + std::to_string(body.outputs.size()) + " outputs, expected at least " + std::to_string(n_carried + 1));
  size_t n_scan = body.outputs.size() - 1 - n_carried;
  int64_t trips = kMaxUnroll + 1;
  if (m >= 0) {
    double mv = const_scalar(e, m, "trip count M");
    if (mv < 0) e.attr_fail("trip count M is negative");
    if (mv > kMaxUnroll) e.unsupported("trip count " + ops::num_str(mv) + " (more than " + std::to_string(kMaxUnroll) + " unrolled iterations)");
    trips = static_cast<int64_t>(mv);
  }
  bool go = cond < 0 || const_scalar(e, cond, "loop condition") != 0;
  if (m < 0 && cond < 0) e.unsupported("Loop without trip count or condition (an endless loop)");
  std::vector<int> carried(e.node().inputs.begin() + 2, e.node().inputs.end());
  for (int v : carried)
    if (v < 0) e.fail("loop-carried inputs must not be omitted");
  std::vector<std::vector<int>> scans(n_scan);
  int64_t i = 0;
  for (; i < trips && go; i++) {
    if (i >= kMaxUnroll) e.unsupported("a loop of more than " + std::to_string(kMaxUnroll) + " iterations");
    std::vector<int> bind = {e.int_const({i}, true), e.constant(bool_scalar(true), "cond")};
    bind.insert(bind.end(), carried.begin(), carried.end());
    std::vector<int> outs = inline_body(e, body, bind, "body (iteration " + std::to_string(i) + ")");
    go = const_scalar(e, outs[0], "loop condition computed by the body") != 0;
    for (size_t k = 0; k < n_carried; k++) carried[k] = outs[1 + k];
    for (size_t k = 0; k < n_scan; k++) scans[k].push_back(outs[1 + n_carried + k]);
  }
  for (size_t k = 0; k < n_carried; k++)
    if (e.output(static_cast<int>(k)) >= 0) e.assign(carried[k], e.output(static_cast<int>(k)));
  for (size_t k = 0; k < n_scan; k++) {
    int out = e.output(static_cast<int>(n_carried + k));
    if (out < 0) continue;
    if (scans[k].empty()) e.unsupported("zero-size scan output (the loop runs no iteration)");
    e.stack(scans[k], 0, out);
  }
}

namespace {

// Scan over scan inputs (axes / directions given), the states threaded through
// the body; returns the final states followed by the stacked scan outputs.
std::vector<int> scan_core(Expander &e, const Graph &body, std::vector<int> states, const std::vector<int> &xs,
                           const std::vector<int64_t> &in_axes, const std::vector<int64_t> &in_dirs,
                           const std::vector<int64_t> &out_axes, const std::vector<int64_t> &out_dirs, const std::string &what) {
  size_t n_state = states.size();
  if (body.inputs.size() != n_state + xs.size())
    e.fail("body has " + std::to_string(body.inputs.size()) + " inputs, expected " + std::to_string(n_state + xs.size()));
  if (body.outputs.size() < n_state) e.fail("body has fewer outputs than states");
  size_t n_out = body.outputs.size() - n_state;
  if (xs.empty()) e.fail("no scan inputs");
  int64_t len = -1;
  std::vector<int> axes;
  for (size_t j = 0; j < xs.size(); j++) {
    int rank = static_cast<int>(e.shape(xs[j]).size());
    int ax = ops::normalize_axis(j < in_axes.size() ? in_axes[j] : 0, rank, "Scan", "scan_input_axes");
    axes.push_back(ax);
    int64_t l = e.shape(xs[j])[ax];
    if (len >= 0 && l != len) e.shape_fail("scan inputs have different lengths " + std::to_string(len) + " and " + std::to_string(l));
    len = l;
  }
  if (len > kMaxUnroll) e.unsupported("scan length " + std::to_string(len) + " (more than " + std::to_string(kMaxUnroll) + " unrolled steps)");
  std::vector<std::vector<int>> outs(n_out);
  for (int64_t t = 0; t < len; t++) {
    std::vector<int> bind = states;
    for (size_t j = 0; j < xs.size(); j++) {
      bool rev = j < in_dirs.size() && in_dirs[j] != 0;
      bind.push_back(e.take(xs[j], rev ? len - 1 - t : t, axes[j]));
    }
    std::vector<int> r = inline_body(e, body, bind, what + " (step " + std::to_string(t) + ")");
    for (size_t k = 0; k < n_state; k++) states[k] = r[k];
    for (size_t k = 0; k < n_out; k++) outs[k].push_back(r[n_state + k]);
  }
  std::vector<int> result = states;
  for (size_t k = 0; k < n_out; k++) {
    if (k < out_dirs.size() && out_dirs[k] != 0) std::reverse(outs[k].begin(), outs[k].end());
    int rank = static_cast<int>(e.shape(outs[k][0]).size()) + 1;
    int ax = ops::normalize_axis(k < out_axes.size() ? out_axes[k] : 0, rank, "Scan", "scan_output_axes");
    result.push_back(e.stack(outs[k], ax));
  }
  return result;
}

}  // namespace

void expand_scan(Expander &e) {
  const Node &n = e.node();
  const Graph &body = body_attr(e, "body");
  int64_t n_scan = n.attr_i("num_scan_inputs", -1);
  bool v8 = e.opset() < 9;
  int first = v8 ? 1 : 0;  // opset 8: input 0 is sequence_lens
  int n_in = static_cast<int>(n.inputs.size()) - first;
  if (n_scan < 1 || n_scan > n_in) e.attr_fail("attribute num_scan_inputs must be in 1.." + std::to_string(n_in));
  std::vector<int> states(n.inputs.begin() + first, n.inputs.end() - n_scan), xs(n.inputs.end() - n_scan, n.inputs.end());
  for (size_t k = first; k < n.inputs.size(); k++)
    if (n.inputs[k] < 0) e.fail("state and scan inputs must not be omitted");
  std::vector<int> result;
  if (!v8) {
    result = scan_core(e, body, states, xs, n.attr_ints("scan_input_axes"), n.attr_ints("scan_input_directions"),
                       n.attr_ints("scan_output_axes"), n.attr_ints("scan_output_directions"), "body");
  } else {
    // Opset 8: axis 0 of every input is a batch axis, the scan axis is 1; the body sees one batch element.
    int64_t batch = e.shape(xs[0]).empty() ? 0 : e.shape(xs[0])[0];
    std::vector<int> all(n.inputs.begin() + 1, n.inputs.end());
    for (int v : all)
      if (e.shape(v).size() < 1 || e.shape(v)[0] != batch) e.shape_fail("inputs must share batch extent " + std::to_string(batch));
    int64_t len = e.shape(xs[0]).size() < 2 ? 0 : e.shape(xs[0])[1];
    if (e.input(0) >= 0) {
      const Value &sl = e.value(e.input(0));
      if (!sl.is_const()) e.unsupported("non-constant sequence_lens");
      for (int64_t k = 0; k < sl.data->size(); k++)
        if (sl.data->get_int(k) != len) e.unsupported("sequence_lens shorter than the sequence");
    }
    std::vector<std::vector<int>> per_batch;
    for (int64_t b = 0; b < batch; b++) {
      std::vector<int> sb, xb;
      for (int v : states) sb.push_back(e.take(v, b, 0));
      for (int v : xs) xb.push_back(e.take(v, b, 0));
      per_batch.push_back(scan_core(e, body, sb, xb, {}, n.attr_ints("directions"), {}, {}, "body (batch " + std::to_string(b) + ")"));
    }
    for (size_t k = 0; k < per_batch.at(0).size(); k++) {
      std::vector<int> vs;
      for (auto &pb : per_batch) vs.push_back(pb[k]);
      result.push_back(e.stack(vs, 0));
    }
  }
  for (size_t k = 0; k < result.size(); k++)
    if (e.output(static_cast<int>(k)) >= 0) e.assign(result[k], e.output(static_cast<int>(k)));
}

std::vector<int> inline_graph(Expander &e, const Graph &body, const std::vector<int> &bind, const std::string &what) {
  return inline_body(e, body, bind, what);
}

const Graph &graph_attr(Expander &e, const std::string &name) { return body_attr(e, name); }

}  // namespace expansion
}  // namespace relay
}  // namespace tetune
