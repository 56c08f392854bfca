// A candidate schedule as a point of a search space: the one type that the
// rule-based SearchSpace (autotune/search_space/) and the spaces and policies
// of autotune/policy/ share.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tetune {
namespace autotune {

/**
 * A sketch index plus named integer parameters (tile sizes per axis and level,
 * unroll depth, vector width, parallel granularity, compute location choices),
 * e.g. params["C.tile.i.1"] = 4. Only its space gives it meaning: the space
 * instantiates it into schedule steps, and mutates and crosses parameters.
 */
struct Candidate {
  int sketch = 0;
  std::map<std::string, int64_t> params;
  /** Canonical text of (sketch, params), e.g. "sketch=0;C.tile.i.1=4": equal candidates, equal keys. */
  std::string key() const;
};

}  // namespace autotune
}  // namespace tetune
