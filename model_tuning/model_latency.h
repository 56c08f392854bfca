// The tuned model's real latency, against the tuner's estimate.
//
// The task scheduler estimates a model's latency as the sum over tasks of
// weight x best measured time (Ansor, Zheng et al., OSDI 2020, section 6),
// each task timed alone with its inputs warm in cache. Inside the model a
// kernel reads what the previous one wrote and the weights arrive from DRAM,
// so the sum can miss the real latency either way. measure_model_latency
// compiles the model as `tetune compile` would (the records of the logs read,
// the default schedule elsewhere), runs it as `tetune run` would and reports
// the median.
#pragma once

#include <map>
#include <string>

#include "relay_import/tuned_schedules.h"
#include "te/tensor.h"

namespace tetune {
namespace autotune {

struct ModelLatency {
  double median_ms = 0;   // median wall time of one run (ms), after one warm-up run
  double min_ms = 0;
  int runs = 0;
  int tuned_tasks = 0;    // tasks compiled from a record (the rest: default schedules)
  int tasks = 0;
  double compile_s = 0;   // JIT compile time (s)
};

/**
 * Exports the ONNX model at onnx_path (input_shapes for its dynamic inputs)
 * with the best records of `logs` for `threads` threads into a scratch
 * directory of its own (removed afterwards), loads it in the runtime a
 * deployment uses (runtime/model.h) and times `runs` runs on seeded inputs
 * (uniform [-1, 1] floats, zero integers); layout as
 * relay::set_layout. Raises what import, export and
 * load raise (ImportError naming the model, a compiler failure, ...).
 */
ModelLatency measure_model_latency(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes, int threads,
                                   const relay::TunedLogs &logs, int runs, const std::string &layout = "blocked");

}  // namespace autotune
}  // namespace tetune
