// Test helper: which axis a schedule's threads split.
#pragma once

#include <string>

#include "schedule/schedule.h"

namespace tetune {

/**
 * The root axis of the first parallel loop of s, in stage order: the outermost of the axes fused into it
 * (a blocked conv split by rows gives its row axis, by channel blocks its channel-block axis); "" when no
 * stage has a parallel loop.
 */
std::string parallel_root(const Schedule &s);

}  // namespace tetune
