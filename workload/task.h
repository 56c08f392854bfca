// Tuning tasks: one compute (an operator or a fused group) with concrete
// shapes and dtypes, for one target.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "te/tensor.h"

namespace tetune {

struct Task {
  std::string name;              // readable, e.g. "matmul_1024x1024x1024"
  std::vector<Tensor> outputs;   // the compute DAG's outputs
  Target target;
  int threads = 1;               // worker threads the kernel will run with
  std::string workload_key;      // workload_key(outputs): equal computes share it
  double flops = 0;              // flop_count(outputs), for GFLOP/s
  double weight = 1;             // occurrences in a model (task scheduler)
  /**
   * Indices into inputs() of the model's constants (weights), set by the
   * graph compiler (relay_import/passes/fusion.h); empty for an operator
   * tuned alone. Inside a model these were last read one inference ago, the
   * other inputs were just written by their producers: the measurer's
   * CacheState::kModel times the kernel so.
   */
  std::vector<int> constant_inputs;

  /** Inputs of the compute in kernel argument order (Schedule(outputs).inputs()). */
  std::vector<Tensor> inputs() const;
};

/** Builds a task; computes workload_key and flops. Raises Error on an empty DAG. */
Task make_task(const std::string &name, const std::vector<Tensor> &outputs, const Target &target = Target{},
               int threads = 1);

/**
 * make_task, with constant_inputs set to the kernel argument positions of
 * `constants` (an operator's weights, ops::OpWorkload::weights), so that the
 * measurer packs and flushes them as a compiled model does. Raises Error
 * naming a constant that is not an input of the compute.
 */
Task make_task(const std::string &name, const std::vector<Tensor> &outputs, const std::vector<Tensor> &constants,
               const Target &target, int threads);

/** The workload row's description stored in the tuning log: {"name": ..., "flops": ...}. */
std::string workload_description(const Task &t);

}  // namespace tetune
