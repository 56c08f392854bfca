// Matrix products (tag "matmul" on the reduction stage; reduce axis "k").
//
// Dtypes: operands must share one dtype (DTypeError naming the op otherwise);
// the product accumulates and is returned in that dtype. ShapeError names the
// op and both shapes when the contraction extents differ.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/**
 * 2-D product: A [M, K] (or [K, M] when trans_a) times B [K, N] (or [N, K] when
 * trans_b) -> [M, N], axes "i", "j", reduce axis "k". attrs: op=MatMul, trans_a, trans_b.
 * ShapeError unless both are rank 2. ONNX MatMul (2-D) / Gemm without C.
 */
Tensor matmul(const Tensor &A, const Tensor &B, bool trans_a = false, bool trans_b = false,
              const std::string &name = "matmul");

/**
 * ONNX MatMul for any ranks >= 1 (NumPy matmul): the last two axes are the
 * matrix (transposed when trans_a / trans_b), leading axes are batch axes
 * broadcast NumPy-style (A [b, m, k] x B [k, n] and [1, m, k] x [3, k, n] are
 * fine). A 1-D A is a row vector [1, K] whose M axis is removed from the
 * result; a 1-D B is a column vector [K, 1] whose N axis is removed (the
 * transposes are ignored for 1-D operands). Output [batch..., M?, N?].
 * attrs: op=MatMul, trans_a, trans_b.
 */
Tensor batch_matmul(const Tensor &A, const Tensor &B, bool trans_a = false, bool trans_b = false,
                    const std::string &name = "batch_matmul");

/**
 * Fully connected layer: X [M, K], W [N, K] (Gemm with transB = 1), optional
 * bias [N] (pass Tensor() for none) -> [M, N]. With a bias the product is the
 * "<name>.matmul" stage (tag "matmul") and <name> adds the bias (tag "broadcast").
 * attrs: op=Dense.
 */
Tensor dense(const Tensor &X, const Tensor &W, const Tensor &bias = Tensor(), const std::string &name = "dense");

/**
 * ONNX Gemm: Y = alpha * A' B' + beta * C, A' = trans_a ? A^T : A (2-D),
 * C optional (Tensor() for none) broadcast unidirectionally to [M, N]
 * (ShapeError otherwise). When alpha != 1 or C is given, the product is the
 * "<name>.matmul" stage and <name> the epilogue (tag "broadcast").
 * attrs: op=Gemm, alpha, beta, trans_a, trans_b.
 */
Tensor gemm(const Tensor &A, const Tensor &B, const Tensor &C = Tensor(), double alpha = 1.0, double beta = 1.0,
            bool trans_a = false, bool trans_b = false, const std::string &name = "gemm");

}  // namespace ops
}  // namespace tetune
