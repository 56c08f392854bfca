// Which values of a compiled graph have a data-dependent extent (see
// host_ops.h): a host op's output along its dynamic axis, and whatever keeps
// those rows apart downstream. Such a value is computed at its upper-bound
// shape (the padding rows hold values derived from zeros) and trimmed to the
// real count where it leaves the model.
#pragma once

#include <vector>

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

struct DynamicAxis {
  int axis = -1;    // -1: the value has a fixed shape
  int source = -1;  // value id of the host-op output whose run-time extent this axis has
};

/**
 * One entry per value of g (static shapes, after the graph passes). A
 * data-dependent axis passes through elementwise ops (not broadcast along it),
 * views and Reshape (when the elements before the axis stay the same),
 * Gather (as data along another axis, or as indices), Transpose, and Slice and
 * Concat along other axes; host ops read their inputs trimmed. Raises
 * ImportError (message contains "unsupported") naming the node for any other
 * reader of a data-dependent value, since it would mix padding rows into real
 * ones (a reduction over the axis, a Gather from it, two different counts).
 */
std::vector<DynamicAxis> dynamic_axes(const Graph &g);

}  // namespace relay
}  // namespace tetune
