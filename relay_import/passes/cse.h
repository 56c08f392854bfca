// Common-subexpression elimination: nodes with the same op, attributes and
// inputs are computed once; equal small constants are merged first so that
// nodes reading copies of one constant also match.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Returns the number of nodes removed (the graph is compacted). */
int eliminate_common_subexpressions(Graph &g);

}  // namespace relay
}  // namespace tetune
