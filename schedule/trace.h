// Serialisation of a schedule as its trace of steps, and replay.
//
// JSON form (version 2): {"version": 2, "steps": [{"kind": "split",
// "stage": "t2", "axes": ["i"], "ints": [32, 0], "target": ""}, ...]}.
// Each step type (step.h) writes its fields into these five: "kind" is its
// kKind; compute_at's target stage, bind's GPU index and split's tail
// strategy go into "target"; cache_read's tensor into "stage" and its readers
// into "axes". Unused fields are written empty.
//
// Version 2 writes tensor and stage names canonically: "t<n>" is the n-th
// tensor of post_order(outputs), the numbering the workload key uses, and a
// stage made by a step keeps its suffix ("t2.local", "t0.cache", "t2.rf").
// So a record replays on every compute with the same workload key, whatever
// its tensors are called (two ONNX models name the same conv differently).
// Axis names are written as the compute declares them; the operator library
// gives an operator the same axis names wherever it is used.
// Version 1 traces wrote the compute's own names; they are read unchanged.
#pragma once

#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace tetune {

/** The trace of s as version-2 JSON text (canonical tensor names). */
std::string trace_to_json(const Schedule &s);
/**
 * Parses a trace and names its stages as the compute of outputs names them.
 * Raises ParseError naming the step index on malformed input, and naming the
 * tensor when a canonical name "t<n>" has no tensor n in this compute.
 */
std::vector<Step> trace_from_json(const std::string &json, const std::vector<Tensor> &outputs);
/**
 * A fresh schedule over outputs with the steps applied in order. Raises
 * ScheduleError (naming the step) when a step is illegal for this compute.
 */
Schedule replay(const std::vector<Tensor> &outputs, const std::vector<Step> &steps);

}  // namespace tetune
