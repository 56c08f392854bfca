// MatMul of a batched activation by a matrix: A [d0, ..., dk, M, K] times
// B [K, N] (a linear layer on an NHWC map: ConvNeXt's and Swin's MLPs read
// [1, H, W, C]) is one GEMM of (d0 * ... * dk * M) rows, as onnxruntime
// runs it. Computed as batched matmuls, each batch is a GEMM of only M rows
// (56 for ConvNeXt-T's first stage), too few for its register blocks to
// fill and reuse a packed panel of B: ConvNeXt-T's MLP ran at 218 GFLOP/s
// untuned, a 3136-row GEMM of the same shape at 389 (bench/RESULTS.md,
// eleventh session).
//
// The pass views A as [P, K] (P = d0 * ... * dk * M; a Reshape, no
// kernel), so the MatMul is [P, K] x [K, N], and carries the 2-D form
// through the elementwise ops after it (the bias Add, an activation, GELU's
// Div, Erf, Add and Mul) whose other operands are scalars or vectors along N
// ([N], [1], or the same with leading 1s), so that they still fuse into the
// GEMM's kernel. A Reshape back to the original shape feeds every other
// reader and graph output.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Rewrites every such MatMul over float32 with more than one batched row block; returns how many. */
int flatten_batched_matmuls(Graph &g);

}  // namespace relay
}  // namespace tetune
