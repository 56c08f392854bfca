// Serialisation of a schedule as its trace of steps, and replay.
//
// JSON form: {"version": 1, "steps": [{"kind": "split", "stage": "C",
// "axes": ["i"], "ints": [32, 0], "target": ""}, ...]}.
#pragma once

#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace tetune {

/** The trace of s as JSON text. */
std::string trace_to_json(const Schedule &s);
/** Parses a trace; raises ParseError naming the step index on malformed input. */
std::vector<Step> trace_from_json(const std::string &json);
/**
 * A fresh schedule over outputs with the steps applied in order. Raises
 * ScheduleError (naming the step) when a step is illegal for this compute.
 */
Schedule replay(const std::vector<Tensor> &outputs, const std::vector<Step> &steps);

}  // namespace tetune
