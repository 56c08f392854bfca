// Constant folding: a node whose inputs are all constants is evaluated at
// import time (its lowering run through te/interpreter, or directly for Shape,
// Size and view ops) and its outputs become constants; the node dies.
#pragma once

#include <cstdint>

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Folds node id if all its inputs are constants and its outputs are at most max_elements. Returns true when folded. */
bool try_fold_node(Graph &g, int id, int64_t max_elements = int64_t(1) << 24);

/** Folds every foldable node in topological order; returns the number folded. */
int fold_constants(Graph &g, int64_t max_elements = int64_t(1) << 24);

}  // namespace relay
}  // namespace tetune
