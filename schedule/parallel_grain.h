// Parallel loops with a bounded number of tasks.
//
// Halide 14's thread pool hands out one iteration of a parallel loop at a
// time under a single mutex, so a parallel loop of thousands of
// microsecond-sized iterations spends its time in that lock: measured on the
// PP-OCRv4 recogniser, 2 threads ran slower than 1. Splitting the loop into at
// most `max_tasks` outer iterations and marking the outer one parallel gives
// each task enough work (the same idea as Halide's Func::parallel(var,
// task_size) and TVM's "parallel outer fused loop" annotation in Ansor,
// section 4.2).
#pragma once

#include <cstdint>
#include <string>

#include "schedule/schedule.h"

namespace tetune {

/**
 * Marks leaf `loop` of `stage` parallel. When its extent E exceeds max_tasks
 * (> 0), it is first split into parts of ceil(E / max_tasks) iterations (at
 * most max_tasks of them; a GuardWithIf tail, so any extent works) and the
 * outer loop over the parts is marked parallel. Returns the name of
 * the parallel loop. Raises ScheduleError (naming stage and loop) like the
 * primitives it calls; nothing is applied when the first step fails.
 */
std::string parallel_with_max_tasks(Schedule &s, const std::string &stage, const std::string &loop, int64_t max_tasks);

}  // namespace tetune
