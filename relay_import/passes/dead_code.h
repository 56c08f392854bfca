// Dead-code elimination: drops nodes whose outputs no graph output depends on.
#pragma once

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** Marks unreachable nodes dead and compacts the graph; returns the number removed. */
int eliminate_dead_code(Graph &g);

}  // namespace relay
}  // namespace tetune
