// Batch-norm folding: Conv (constant weights, optional constant bias) followed
// by BatchNormalization (constant parameters) as the conv output's only
// reader becomes one Conv with scaled weights and a shifted bias:
//   s = scale / sqrt(var + eps); W' = W * s[o]; b' = (b - mean) * s + bias.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Returns the number of BatchNormalization nodes folded (the graph is compacted). */
int fold_batch_norms(Graph &g);

}  // namespace relay
}  // namespace tetune
