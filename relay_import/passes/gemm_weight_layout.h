// Gemm weight layout: a Gemm with transB = 1 whose B is a constant (a linear
// layer's W [N, K], as torch.nn.Linear exports it) gets B transposed once at
// compile time, [K, N], and transB = 0. The product then reads B along its
// columns, the layout its GEMM schedules pack in panels; with transB the
// column vectors are gathers of stride K (ViT's attention out-projection,
// 197x768x768: 13 ms untuned, against 3.5 ms for MatMul of the same shape).
//
// A Gemm of one row of A (a batch-1 classifier head) keeps W [N, K]: each
// output is a dot product along a contiguous row of W, which streams the
// weight from memory at the bandwidth; transposed, the 9216 x 4096 matrix
// of AlexNet's first Linear layer took 4.16 ms untuned against 1.90 ms
// (bench/RESULTS.md, eleventh session).
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Returns the number of Gemm nodes whose constant B was transposed (float dtypes only). */
int pretranspose_gemm_weights(Graph &g);

}  // namespace relay
}  // namespace tetune
