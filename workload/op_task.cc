#include "workload/op_task.h"

#include <sstream>

#include "codegen/buffer_limits.h"

namespace tetune {

std::string op_task_name(const std::string &op, const std::vector<int64_t> &dims) {
  std::ostringstream name;
  name << op;
  for (size_t i = 0; i < dims.size(); i++) name << (i ? "x" : "_") << dims[i];
  return name.str();
}

Task op_task(const std::string &op, const std::vector<int64_t> &dims, const Target &target, int threads,
             ops::OpWorkload *workload) {
  ops::OpWorkload w = ops::build_op(op, dims);
  std::vector<Tensor> all = w.inputs;
  all.insert(all.end(), w.outputs.begin(), w.outputs.end());
  std::ostringstream shape;
  for (size_t i = 0; i < dims.size(); i++) shape << (i ? "," : "") << dims[i];
  check_tensor_sizes(all, "--shape " + shape.str() + ": " + op);
  Task t = make_task(op_task_name(op, dims), w.outputs, w.weights, target, threads);
  if (workload) *workload = std::move(w);
  return t;
}

}  // namespace tetune
