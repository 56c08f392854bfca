// A registry operator (`tetune ops`) at one shape as a tuning task: what
// tune-op, run-op, `cost-model export --op` and the Python API tune and time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "te/ops/registry.h"
#include "workload/task.h"

namespace tetune {

/** "<op>_<dims joined by x>", e.g. matmul_1024x1024x1024: the task name under which tune-op stores records. */
std::string op_task_name(const std::string &op, const std::vector<int64_t> &dims);

/**
 * Builds operator `op` at `dims` (ops::build_op) and its task: named by
 * op_task_name, the operator's weights as constant inputs (packed and, under
 * CacheState::kModel, flushed as in a compiled model). Raises the registry's
 * AttributeError / UsageError for an unknown op or a bad shape, and ShapeError
 * naming the shape when a tensor cannot be compiled or does not fit in memory
 * (codegen/buffer_limits.h). `workload`, when given, receives the built operator.
 */
Task op_task(const std::string &op, const std::vector<int64_t> &dims, const Target &target, int threads,
             ops::OpWorkload *workload = nullptr);

}  // namespace tetune
