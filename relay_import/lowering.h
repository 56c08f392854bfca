// Lowering of one graph node (ONNX semantics, opset-aware) to TE tensors built
// with te/ops. Used for shape inference (inputs are placeholders), constant
// folding (the result is evaluated by te/interpreter) and for building the
// compute DAG of a fused group (inputs are the tensors of earlier members).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relay_import/graph.h"
#include "te/tensor.h"

namespace tetune {
namespace relay {

/** How an op combines with its neighbours in fusion. */
enum class OpPattern {
  Elemwise,   // one output element from the same-index elements of its inputs (with broadcasting)
  Injective,  // data movement (transpose, slice, concat, pad, gather, resize)
  View,       // same data, new shape (Reshape, Flatten, Squeeze, Unsqueeze, Identity)
  Anchor,     // conv / matmul: epilogues fuse into it
  Reduce,     // reductions, pooling, softmax
  Host,       // data-dependent output size (NonZero, NonMaxSuppression): run by the executor, see host_ops.h
};

class LowerContext {
 public:
  LowerContext(const Graph &g, const Node &node, std::function<Tensor(int)> input)
      : g_(g), node_(node), input_(std::move(input)) {}

  const Node &node() const { return node_; }
  const Graph &graph() const { return g_; }
  int opset() const { return g_.opset; }
  /** Name prefix for the tensors of this node. */
  std::string name() const;
  /** Number of input slots (including omitted ones). */
  int num_inputs() const { return static_cast<int>(node_.inputs.size()); }
  /** True when input slot i is present. */
  bool has(int i) const { return i < num_inputs() && node_.inputs[i] >= 0; }
  /** TE tensor of input i (ImportError when absent). */
  Tensor in(int i) const;
  const Value &value(int i) const;
  /** Constant data of input i, or nullptr when it is not a constant. */
  const NDArray *cdata(int i) const;
  /** Integer / float contents of constant input i; ImportError naming the input when it is not constant. */
  std::vector<int64_t> const_ints(int i, const std::string &what) const;
  std::vector<double> const_floats(int i, const std::string &what) const;
  /** TE tensor of input i, which must have rank n (ShapeError naming the node and input otherwise). */
  Tensor in_rank(int i, int n, const std::string &what) const;
  /** TE tensor of input i, which must have rank >= n. */
  Tensor in_min_rank(int i, int n, const std::string &what) const;
  /**
   * Integer-list attribute k (def when absent) that must hold n values (n < 0: any
   * number) each >= min_value; AttributeError naming the node and attribute otherwise.
   */
  std::vector<int64_t> ints_attr(const std::string &k, const std::vector<int64_t> &def, int n, int64_t min_value) const;
  /** ShapeError when a shape computed from the model has a negative / zero extent or too many elements. */
  void check_shape(const Shape &s, const std::string &what) const;
  /** ShapeError "<op> node '<name>' (opset N): msg". */
  [[noreturn]] void shape_fail(const std::string &msg) const;
  /** AttributeError "<op> node '<name>' (opset N): msg". */
  [[noreturn]] void attr_fail(const std::string &msg) const;
  /** ImportError "<op> node '<name>' (opset N): msg". */
  [[noreturn]] void fail(const std::string &msg) const;
  /** ImportError for an unsupported variant; the message contains "unsupported". */
  [[noreturn]] void unsupported(const std::string &what) const;

 private:
  const Graph &g_;
  const Node &node_;
  std::function<Tensor(int)> input_;
};

using LowerFn = std::function<std::vector<Tensor>(LowerContext &)>;

/** True when op has a lowering (Constant and Shape are handled by the importer). */
bool is_supported_op(const std::string &op);
/** All supported op types, sorted. */
std::vector<std::string> supported_ops();
/**
 * How node n fuses: its op's pattern, except that a View op whose node also
 * produces a second output (Dropout's mask) is Injective, since a view group
 * only aliases its one input.
 */
OpPattern op_pattern(const Node &n);

/**
 * Lowers node to TE tensors, one per node output (omitted trailing outputs may
 * be missing). Raises ImportError naming op, node and opset for unsupported ops
 * or variants and for non-constant inputs that must be constant.
 */
std::vector<Tensor> lower_node(LowerContext &ctx);

/** Most elements a tensor shape of an imported model may have (larger shapes are rejected as malformed). */
constexpr int64_t kMaxShapeElements = int64_t(1) << 32;
/** Most elements of a tensor stored in the model file or built by constant folding. */
constexpr int64_t kMaxDataElements = int64_t(1) << 28;
/** Element count of s, or -1 when an extent is negative or the count exceeds limit (no overflow). */
int64_t checked_num_elements(const Shape &s, int64_t limit);

/** DType of an ONNX TensorProto.DataType code; ImportError for unsupported codes. */
DType dtype_from_onnx(int code, const std::string &what);

}  // namespace relay
}  // namespace tetune
