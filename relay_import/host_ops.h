// Ops whose output size depends on input values: ONNX NonZero, Compress,
// Unique and NonMaxSuppression.
//
// Design (small on purpose):
// - Shape inference gives each output its upper bound (NonZero: [rank, numel],
//   NonMaxSuppression: [batches * classes * min(max_output_boxes_per_class,
//   boxes), 3], ...). Their lowerings (lowering_dynamic.cc) return tensors of
//   that shape for shape inference only; the op pattern is OpPattern::Host.
// - Fusion puts such a node alone in a FusedGroup::Host; the executor runs it
//   here, in C++, on its exact inputs, and pads each output to its bound with
//   zeros (zero is a valid index, so a downstream Gather stays in range).
// - The real extent along the output's dynamic axis travels with the value
//   (dynamic_rows.h): nodes that keep rows apart (Gather, elementwise, views,
//   Transpose, Concat and Slice on other axes) carry it, graph outputs are
//   trimmed to it, and any other reader is refused at compile time.
// Constant folding runs the same functions, so constant inputs fold to
// exact-size constants and nothing is data-dependent at run time.
// NonMaxSuppression's greedy selection is sequential (box i is kept only when
// no kept higher-scoring box overlaps it), which TE, having no recurrence,
// cannot express; these ops are data movement with no tuning to gain.
// The compiler-free runtime (export) does not run host ops: the exporter
// raises an "unsupported in export" ImportError naming the node.
#pragma once

#include <string>
#include <vector>

#include "base/ndarray.h"
#include "relay_import/graph.h"

namespace tetune {
namespace relay {

struct HostOp {
  /**
   * Exact outputs, one per node output (an omitted output may be left empty),
   * from the inputs (an omitted optional input is an empty NDArray). Raises
   * RuntimeError naming the node on input values ONNX forbids.
   */
  std::vector<NDArray> (*run)(const Node &n, const std::vector<NDArray> &inputs);
  /** Axis of output k (of rank `rank`) whose extent is data-dependent, -1 when output k has a fixed shape. */
  int (*dynamic_axis)(const Node &n, int k, int rank);
};

/** The host op of an op type, or nullptr. */
const HostOp *find_host_op(const std::string &op);

/** Runs node n's host op (which must exist). */
std::vector<NDArray> run_host_op(const Node &n, const std::vector<NDArray> &inputs);

/** The first `count` entries of a along axis (count <= a.shape()[axis]). */
NDArray take_leading(const NDArray &a, int axis, int64_t count);
/** a zero-padded to shape (same rank, every extent >= a's), elements at their own indices. */
NDArray pad_to(const NDArray &a, const Shape &shape);

}  // namespace relay
}  // namespace tetune
