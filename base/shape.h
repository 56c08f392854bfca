// Tensor shapes: extents outermost first (row-major; the last axis varies fastest in memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tetune {

using Shape = std::vector<int64_t>;

/** "1x3x224x224"; "scalar" for the empty shape. */
std::string shape_str(const Shape &s);

}  // namespace tetune
