// Zero-size constants in shape arithmetic. Exported models compute shapes
// with Slice and Concat on Shape's output, and a slice there can be empty:
// torchvision's Swin Transformer concatenates `shape[:1]` with `shape[2:]` of
// a rank-2 shape. tetune's tensors are never zero-size, so while shapes are
// inferred (shape_inference.h) such nodes are folded here first:
//   - a Slice of a constant rank-1 tensor whose result is empty becomes an
//     empty constant (shape [0], the input's dtype);
//   - a Concat drops its constant operands with no elements; when every
//     operand is empty, its output is an empty constant.
// Any other reader of an empty constant is still rejected by lowering, with
// an error naming it (zero-size tensors are unsupported).
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/**
 * Applies the rules above to node id (inputs inferred). Returns true when the
 * node was folded away (its output is now an empty constant), false when it
 * is left to the usual inference, perhaps with empty operands removed.
 */
bool fold_empty_constants(Graph &g, int id);

}  // namespace relay
}  // namespace tetune
