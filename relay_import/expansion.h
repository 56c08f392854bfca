// Import-time expansion of ONNX ops that become many ordinary nodes:
//  * RNN / LSTM / GRU unroll into one cell node per time step
//    (relay_import/lowering_rnn.cc), so each step is a TE task and all steps
//    share one workload key;
//  * If / Loop / Scan inline their bodies, loops unrolled to their
//    compile-time trip count (relay_import/lowering_control.cc).
// Shape inference expands such a node when it reaches it in topological
// order: its inputs then have shapes, and constants are folded. The new
// nodes are appended to the graph, write the expanded node's output values,
// and are shape-inferred (and folded) one by one as they are added, so an
// expansion can look at the shapes and constant values of what it built. The
// expanded node is marked dead.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Builds the nodes that replace one expanded node. */
class Expander {
 public:
  /** infer(id) shape-infers (and folds) a newly added node. Marks node `id` dead. */
  Expander(Graph &g, int id, std::function<void(int)> infer);

  Graph &graph() { return g_; }
  /** A copy of the expanded node (the graph's node vector grows while expanding). */
  const Node &node() const { return node_; }
  int opset() const { return g_.opset; }
  /** "LSTM node 'name' (opset N)" for messages. */
  std::string where() const;
  /** ImportError "<where>: msg". */
  [[noreturn]] void fail(const std::string &msg) const;
  /** ImportError "<where>: unsupported what" (counted as unsupported, not failed). */
  [[noreturn]] void unsupported(const std::string &what) const;
  /** ShapeError / AttributeError "<where>: msg". */
  [[noreturn]] void shape_fail(const std::string &msg) const;
  [[noreturn]] void attr_fail(const std::string &msg) const;

  /** Value id of the node's input slot i, or -1 when omitted. */
  int input(int i) const;
  /** Value id of output slot i, or -1 when omitted. */
  int output(int i) const;
  const Value &value(int v) const { return g_.values.at(v); }
  const Shape &shape(int v) const { return g_.values.at(v).shape; }

  /** A constant value holding a. */
  int constant(const NDArray &a, const std::string &what);
  /** An int64 constant: a 1-D list, or a scalar when scalar is true (v must then hold one value). */
  int int_const(const std::vector<int64_t> &v, bool scalar = false);

  /**
   * Appends node op(inputs) (-1: omitted input) with attrs and infers it.
   * outputs[k] >= 0 makes output k write that existing value (an output of
   * the expanded node); -1 creates a new value. Returns the output value ids.
   */
  std::vector<int> emit(const std::string &op, const std::vector<int> &inputs, const Attrs &attrs = {},
                        const std::vector<int> &outputs = {-1});
  int emit1(const std::string &op, const std::vector<int> &inputs, const Attrs &attrs = {}, int out = -1) {
    return emit(op, inputs, attrs, {out})[0];
  }

  /** v[index] along axis (Gather with a scalar index, which drops the axis). */
  int take(int v, int64_t index, int axis);
  /** v viewed with shape s (Reshape). */
  int reshape(int v, const Shape &s, int out = -1);
  /** The values (equal shapes) stacked along a new axis: [n] + shape for axis 0. */
  int stack(const std::vector<int> &vs, int axis, int out = -1);
  /** Writes v into value out (Identity). */
  void assign(int v, int out);

 private:
  Graph &g_;
  Node node_;
  std::function<void(int)> infer_;
  int counter_ = 0;
};

/** Most graph nodes an expansion may grow the graph to (each unrolled step copies its body or cell). */
constexpr size_t kMaxExpandedNodes = size_t(1) << 20;
/** Most steps one Loop / Scan / recurrent op is unrolled to. */
constexpr int64_t kMaxUnroll = 4096;

/** True for the ops expanded at import (RNN, LSTM, GRU, If, Loop, Scan, sequence and optional ops). */
bool is_expanded_op(const std::string &op);
/** True when node id reads a sequence or optional value (expanded: Identity aliases it, other ops are unsupported). */
bool reads_non_tensor(const Graph &g, int id);
/** Expands node id (see the file comment); infer(id) shape-infers and folds a new node. */
void expand_node(Graph &g, int id, const std::function<void(int)> &infer);

namespace expansion {
void expand_recurrent(Expander &e);  // lowering_rnn.cc: RNN, LSTM, GRU
void expand_if(Expander &e);         // lowering_control.cc
void expand_loop(Expander &e);
void expand_scan(Expander &e);
/** Body input k reads bind[k]; returns the body's output values (lowering_control.cc). */
std::vector<int> inline_graph(Expander &e, const Graph &body, const std::vector<int> &bind, const std::string &what);
/** The node's graph attribute `name`; AttributeError when missing (lowering_control.cc). */
const Graph &graph_attr(Expander &e, const std::string &name);
// lowering_sequence.cc: sequence / optional ops, and any node reading such a value.
void expand_sequence_op(Expander &e);
void expand_non_tensor_reader(Expander &e);
/**
 * Value out becomes Where(cond, a, b) for sequences or optionals a and b of
 * the same structure (lengths, element shapes and dtypes), element by element:
 * an If with a run-time condition. Unsupported when the structures differ.
 */
void select_structured(Expander &e, int cond, int a, int b, int out);
/** The ops expand_sequence_op handles. */
const std::vector<std::string> &sequence_ops();
}  // namespace expansion

}  // namespace relay
}  // namespace tetune
