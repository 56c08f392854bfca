// Layer-norm fusion: the subgraph that exporters write for a layer norm
// (torch.onnx.export of nn.LayerNorm below opset 17) becomes one ONNX
// LayerNormalization node, as onnxruntime's LayerNormFusion does:
//
//   mean = ReduceMean(x, axes)            d   = Sub(x, mean)
//   var  = ReduceMean(Pow(d, 2), axes)    std = Sqrt(Add(var, epsilon))
//   y    = Div(d, std) [* scale] [+ bias]
//
// -> y = LayerNormalization(x, scale, bias; axis, epsilon). Four kernels (the
// mean, the centred and squared copies written out, the variance, the
// normalisation) become one group that reads x once per statistic and writes
// y once (ops::layer_norm, te/ops/norm.h; the same formula: biased variance,
// (x - mean) / sqrt(var + epsilon)).
//
// Fused when: both ReduceMeans keep their dims and reduce the same trailing
// axes [axis, r) of x (attribute axes, or a constant axes input from opset
// 18); the exponent is the constant 2 and epsilon a constant scalar; every
// value inside the pattern is read only by the next node of the pattern (d by
// the Pow and the Div) and is no graph output; x, scale and bias share x's
// float dtype; and scale and bias, without their leading 1s, have at most
// r - axis dims (they then broadcast to x.shape[axis:], as LayerNormalization
// requires). A Mul or Add that does not fit stays after the fused node.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Rewrites every such subgraph of g to LayerNormalization and compacts g; returns how many. */
int fuse_layer_norms(Graph &g);

}  // namespace relay
}  // namespace tetune
