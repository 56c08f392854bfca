// A Transpose that moves only axes of extent 1 keeps every element at its
// offset: [197, 1, 768] -> [1, 197, 768] (torch's batch-first MultiheadAttention
// around its sequence-first core, as ViT-B/16 exports it) is the same bytes in a
// new shape. As a Reshape it is a view (no kernel, no copy), as onnxruntime's
// TransposeOptimizer makes it; as a Transpose it was a copy kernel per use.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/**
 * Rewrites every live Transpose whose permutation keeps its input's axes of
 * extent > 1 in order (input shape known) into a Reshape to its output shape;
 * returns how many. The output value keeps its id, name and readers.
 */
int transposes_of_unit_axes_to_views(Graph &g);

}  // namespace relay
}  // namespace tetune
