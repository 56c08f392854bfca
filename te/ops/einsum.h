// ONNX Einsum (Operators.md Einsum, opset 12) rewritten into the ops the
// tuner already knows: per operand a diagonal (a label repeated within the
// operand) and a sum over labels no other operand or the output uses, then,
// left to right, one batched matrix product per pair of operands (transposes
// and reshapes around ops::batch_matmul), and a final transpose into the
// output order. Every stage is a plain TE compute, so each is scheduled and
// tuned like a hand-written MatMul / Transpose / ReduceSum.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/**
 * Einstein summation over inputs (all of one dtype; DTypeError otherwise).
 *
 * equation: "term,term,...[->term]"; a term is letters (a-z, A-Z), one per
 * axis, with at most one "..." standing for the axes the letters do not name.
 * Spaces are ignored. A letter repeated within a term takes the diagonal.
 * Without "->" the output is the ellipsis axes followed by the letters that
 * occur exactly once, in ASCII order (NumPy's implicit mode). Letters and
 * ellipsis axes absent from the output are summed over; an explicit output
 * without "..." sums the ellipsis axes too.
 *
 * Extents of one label must agree across operands, except that an extent 1
 * broadcasts against any other (ellipsis axes align from the right, as in
 * NumPy). Output: one axis per output label, in output order (rank 0 when the
 * output term is empty).
 *
 * Errors: AttributeError for a malformed equation (bad character, more than
 * one "...", a term count that differs from inputs.size(), an output letter
 * repeated or absent from the inputs); ShapeError when a term names more axes
 * than its operand has, or fewer without "...", or when extents disagree.
 *
 * Stages are named "<name>.<k>_<what>" (squeeze, diagonal, sum, transpose,
 * reshape, matmul); a final transpose into the output order (or the copy of
 * an identity equation) is named `name`, otherwise the last of those stages
 * is the result. The products carry tag "matmul".
 */
Tensor einsum(const std::string &equation, const std::vector<Tensor> &inputs, const std::string &name = "einsum");

}  // namespace ops
}  // namespace tetune
