// Typed graph IR of an imported model (ONNX semantics, static shapes).
//
// A Graph holds values (tensors: graph inputs, constants with data, node
// outputs) and nodes (an op type, attributes, input / output value ids).
// Value id -1 in a node's inputs marks an omitted optional input. Shapes are
// static once shape inference ran (the importer specialises dynamic input
// dimensions with user-given shapes). Everything here is plain data (names,
// shapes, dtypes, attribute values, NDArray weights) so a graph can be
// serialised for AOT export (see save / load).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/ndarray.h"
#include "te/tensor.h"

namespace tetune {
namespace relay {

class Graph;

/**
 * One attribute value (ONNX AttributeProto). Graph holds a control-flow body
 * (If / Loop / Scan) that the importer inlines before shape inference; its
 * free values (no producer, not an input or constant) name outer-scope values.
 */
struct Attr {
  enum Kind { Int, Float, String, Ints, Floats, Strings, Tensor, Graph } kind = Int;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  std::shared_ptr<NDArray> t;
  std::shared_ptr<const relay::Graph> g;

  static Attr of_int(int64_t v) { Attr a; a.kind = Int; a.i = v; return a; }
  static Attr of_float(double v) { Attr a; a.kind = Float; a.f = v; return a; }
  static Attr of_string(const std::string &v) { Attr a; a.kind = String; a.s = v; return a; }
  static Attr of_ints(const std::vector<int64_t> &v) { Attr a; a.kind = Ints; a.ints = v; return a; }
  static Attr of_floats(const std::vector<double> &v) { Attr a; a.kind = Floats; a.floats = v; return a; }
  /** Readable rendering: 3, 0.5, "nearest", [1,2]. */
  std::string str() const;
};

using Attrs = std::map<std::string, Attr>;

struct Value {
  std::string name;
  Shape shape;
  DType dtype = float32();
  bool shape_known = false;
  int producer = -1;                 // node id, or -1 (graph input / constant)
  bool is_input = false;             // a graph input
  std::shared_ptr<NDArray> data;     // constant data (initializer, Constant, folded)
  /**
   * ONNX sequence and optional values exist only while importing: sequence
   * ops are expanded (relay_import/lowering_sequence.cc), so a Sequence value
   * is the list of its element tensor values (`elements`, in order; `dtype`
   * is the element dtype) and an Optional holds its one value in `elements`
   * (none when empty). Compiled graphs hold tensors only.
   */
  enum class Kind { Tensor, Sequence, Optional } kind = Kind::Tensor;
  std::vector<int> elements;
  bool is_const() const { return data != nullptr; }
  int64_t nbytes() const;
};

struct Node {
  std::string op;      // ONNX op type ("Conv")
  std::string name;    // node name (made unique by the importer)
  Attrs attrs;
  std::vector<int> inputs;   // value ids; -1 = omitted optional input
  std::vector<int> outputs;  // value ids
  bool dead = false;         // removed by a pass (compact() drops it)

  bool has_attr(const std::string &k) const { return attrs.count(k) != 0; }
  int64_t attr_i(const std::string &k, int64_t def) const;
  double attr_f(const std::string &k, double def) const;
  std::string attr_s(const std::string &k, const std::string &def) const;
  std::vector<int64_t> attr_ints(const std::string &k, const std::vector<int64_t> &def = {}) const;
  std::vector<double> attr_floats(const std::string &k, const std::vector<double> &def = {}) const;
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // graph input value ids
  std::vector<int> outputs;  // graph output value ids
  int opset = 0;             // default-domain opset
  std::string source;        // file it came from (for messages)

  /** Adds a value; names need not be unique (lookup returns the latest). */
  int add_value(const std::string &name, const Shape &shape = {}, DType dtype = float32(), bool known = false);
  int add_const(const std::string &name, const NDArray &data);
  /**
   * Adds a Reshape of value v to `shape` (a view: no kernel), its shape a new
   * constant NAME.shape, writing `out`, or a new value NAME when out is -1;
   * returns the output value.
   */
  int add_reshape(int v, const Shape &shape, const std::string &name, int out = -1);
  /** Adds a node; sets the producer of its outputs. Returns the node id. */
  int add_node(Node n);
  /** Makes every reader of value `from` (nodes and graph outputs) read `to` instead. */
  void replace_uses(int from, int to);
  /** Value id by name, or -1. */
  int find_value(const std::string &name) const;

  /** Live node ids, producers before consumers. Raises ImportError naming a node on a cycle. */
  std::vector<int> topo_order() const;
  /** For every value, the live nodes that read it (each node once). */
  std::vector<std::vector<int>> consumers() const;
  /** Drops dead nodes and unreferenced non-input values, renumbering ids; keeps topological order. */
  void compact();
  /** Number of live nodes. */
  int num_live_nodes() const;
  /** op type -> count over live nodes. */
  std::map<std::string, int> op_histogram() const;
  /** Total bytes of constant data referenced by live nodes / outputs. */
  int64_t weight_bytes() const;

  /** Binary serialisation of the whole graph including constant data. */
  void save(const std::string &path) const;
  /** Raises ParseError when the file is not a graph written by save(). */
  static Graph load(const std::string &path);

 private:
  std::map<std::string, int> by_name_;
};

/**
 * Who reads each value of a graph, taken once (Graph::consumers) before a
 * pass rewrites it, with the graph's outputs: what a fusion pass asks before
 * it lets a value disappear into a fused node.
 */
struct ValueReaders {
  std::vector<std::vector<int>> of;  // value -> the live nodes that read it
  std::vector<char> is_output;       // value -> a graph output

  explicit ValueReaders(const Graph &g);
  /** The node that alone reads v, or -1 (none, several, a node dead since, or v is a graph output). */
  int only(const Graph &g, int v) const;
};

}  // namespace relay
}  // namespace tetune
