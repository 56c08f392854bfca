// Channel-scale folding: y = Conv(x * s, W) with s a per-channel scale of x
// ([1, C, 1, 1]: a squeeze-and-excitation gate) becomes y = Conv(x, W * s),
// the scale applied to the weight's input-channel axis instead of to every
// element of x. The scaled weight is a small Mul node (K x C x kh x kw
// elements, computed per run, as s is); the Mul over the whole activation
// (C x H x W, a separate pass through memory in the model) goes away.
//
// Folded when: the Conv has group 1 and reads the Mul's output as its data
// input, nothing else reads it (nor is it a graph output), the other Mul input
// has x's shape [1, C, H, W], float dtypes agree, s is [1, C, 1, 1] or
// [C, 1, 1], and W has fewer elements than x (the scaled copy is the smaller
// pass through memory: EfficientNet-B0's first blocks, not its 1152 x 320
// projections at 7x7). Batch 1 only: with N > 1 each image would need its own
// weight.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Rewrites every such Conv; returns how many were folded. */
int fold_channel_scales_into_convs(Graph &g);

}  // namespace relay
}  // namespace tetune
