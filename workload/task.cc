#include "workload/task.h"

#include <algorithm>

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

Task make_task(const std::string &name, const std::vector<Tensor> &outputs, const std::vector<Tensor> &constants,
               const Target &target, int threads) {
  Task t = make_task(name, outputs, target, threads);
  const std::vector<Tensor> args = t.inputs();
  for (const Tensor &c : constants) {
    auto at = std::find_if(args.begin(), args.end(), [&](const Tensor &a) { return a.same_as(c); });
    if (at == args.end()) throw Error("task '" + name + "': constant '" + c.name() + "' is not an input of its compute");
    t.constant_inputs.push_back(static_cast<int>(at - args.begin()));
  }
  return t;
}

}  // namespace tetune
