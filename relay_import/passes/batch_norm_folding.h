// Batch norms at inference (constant parameters), as one per-channel affine
// map y = x * s + t with s = scale / sqrt(var + eps), t = bias - mean * s.
//
// Folding: Conv (constant weights, optional constant bias) followed by
// BatchNormalization as the conv output's only reader becomes one Conv with
// scaled weights and a shifted bias: W' = W * s[o]; b' = (b - mean) * s + bias.
//
// Affine: any other such BatchNormalization (one that no conv output feeds
// alone: DenseNet's pre-activation BN -> ReLU -> Conv after a Concat) becomes
// Mul(x, s) then Add(., t), s and t constants [C, 1, ..., 1]. Those broadcast
// NumPy-style, so the blocked layout (blocked_layout.h) moves them as it
// moves any elementwise op, and fusion merges them with what follows.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Returns the number of BatchNormalization nodes folded (the graph is compacted). */
int fold_batch_norms(Graph &g);

/** Rewrites every remaining inference BatchNormalization over float32 [N, C, ...] (above); returns how many. */
int batch_norms_to_affine(Graph &g);

}  // namespace relay
}  // namespace tetune
