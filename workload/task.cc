#include "workload/task.h"

#include "schedule/schedule.h"
#include "base/errors.h"
#include "te/structural_hash.h"

namespace tetune {

std::string workload_description(const Task &t) {
  std::string name;
  for (char c : t.name) {
    if (c == '"' || c == '\\') name += '\\';
    name += c;
  }
  return "{\"name\": \"" + name + "\", \"flops\": " + std::to_string(t.flops) + "}";
}

std::vector<Tensor> Task::inputs() const { return Schedule(outputs).inputs(); }

Task make_task(const std::string &name, const std::vector<Tensor> &outputs, const Target &target, int threads) {
  if (outputs.empty()) throw Error("task '" + name + "' has no outputs");
  Task t;
  t.name = name;
  t.outputs = outputs;
  t.target = target;
  t.threads = threads;
  t.workload_key = workload_key(outputs);
  t.flops = flop_count(outputs);
  return t;
}

}  // namespace tetune
