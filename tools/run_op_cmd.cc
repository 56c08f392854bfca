// tetune run-op: build one operator with a schedule trace, run it on random
// inputs, check it against the reference and print its median time.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "te/errors.h"
#include "te/interpreter.h"
#include "te/ops/registry.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

namespace {
struct RunOpArgs {
  std::string op, shape, schedule_path, asm_path;
  int threads = 1, repeat = 20;
  uint64_t seed = 1;
  bool print_loops = false;
};

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read schedule file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void run_op(const RunOpArgs &a) {
  set_num_threads(a.threads);
  ops::OpWorkload w = ops::build_op(a.op, ops::parse_int_list(a.shape));
  Schedule s = a.schedule_path.empty() ? Schedule(w.outputs) : replay(w.outputs, trace_from_json(read_file(a.schedule_path), w.outputs));
  std::vector<NDArray> inputs;
  for (size_t i = 0; i < s.inputs().size(); i++)
    inputs.push_back(NDArray::random(s.inputs()[i].shape(), s.inputs()[i].dtype(), a.seed + i));
  auto t0 = std::chrono::steady_clock::now();
  Kernel k = Kernel::build(s);
  double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("built in %.0f ms\n", build_ms);
  std::vector<NDArray> outs = k.run(inputs);
  // Reference: the plain interpreter for small ops; the unscheduled kernel (checked against the
  // interpreter by the test suite) where interpreting would take minutes.
  double flops = flop_count(w.outputs);
  std::vector<NDArray> ref;
  const char *ref_name = flops < 5e7 ? "interpreter" : "unscheduled kernel";
  if (flops < 5e7) ref = interpret(w.outputs, s.inputs(), inputs);
  else ref = Kernel::build(Schedule(w.outputs)).run(inputs);
  bool ok = true;
  for (size_t i = 0; i < outs.size(); i++) {
    auto [rtol, atol] = default_tolerance(outs[i].dtype());
    std::string where;
    bool close = all_close(outs[i], ref[i], rtol, atol * 10, &where);
    std::printf("output %s %s[%s]: max |diff| vs %s = %.3g %s\n", w.outputs[i].name().c_str(), outs[i].dtype().str().c_str(),
                shape_str(outs[i].shape()).c_str(), ref_name, max_abs_diff(outs[i], ref[i]), close ? "OK" : ("MISMATCH " + where).c_str());
    ok &= close;
  }
  double ms = k.median_ms(inputs, outs, 2, a.repeat);
  std::printf("%s %s threads=%d: median %.4f ms over %d runs, %.2f GFLOP/s\n", a.op.c_str(), a.shape.c_str(), a.threads, ms,
              a.repeat, flops / (ms * 1e6));
  if (a.print_loops) std::printf("%s", k.loop_nest().str().c_str());
  if (!a.asm_path.empty()) compile_assembly(s, a.asm_path, a.op);
  if (!ok) throw RuntimeError("op '" + a.op + "' does not match the reference");
}
}  // namespace

void add_run_op_command(CLI::App &app) {
  auto args = std::make_shared<RunOpArgs>();
  auto *cmd = app.add_subcommand("run-op", "Build an operator with a schedule, check it against the reference, time it");
  cmd->add_option("--op", args->op, "operator name (see `tetune ops`)")->required();
  cmd->add_option("--shape", args->shape, "comma-separated integers, e.g. 1024,1024,1024")->required();
  cmd->add_option("--schedule", args->schedule_path, "schedule trace JSON (default: unscheduled)");
  cmd->add_option("--threads", args->threads, "worker threads");
  cmd->add_option("--repeat", args->repeat, "timed runs (median reported)");
  cmd->add_option("--seed", args->seed, "random input seed");
  cmd->add_option("--emit-asm", args->asm_path, "also write the kernel's assembly (host target) to this file");
  cmd->add_flag("--print-loops", args->print_loops, "print the lowered loop nest");
  cmd->callback([args] { run_op(*args); });
}

}  // namespace cli
}  // namespace tetune
