// tetune run-op: build one operator with one or more schedule traces, run
// them on random inputs, check each against the reference and print their
// median times (several schedules: side by side in interleaved rounds), with
// the caches warm or as a model leaves them (--cache).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "autotune/default_schedule.h"
#include "autotune/measure/measure.h"
#include "codegen/kernel.h"
#include "codegen/prepack.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "te/interpreter.h"
#include "te/ops/registry.h"
#include "tuning_logs/records.h"
#include "tools/cli_options.h"
#include "tools/commands.h"
#include "workload/op_task.h"

namespace tetune {
namespace cli {

namespace {
// --schedule's word for the analytical default (autotune/default_schedule.h) instead of a trace file.
constexpr const char *kDefaultSchedule = "default";

struct RunOpArgs {
  std::string op, shape, asm_path, cache;  // cache: set by add_cache_option
  std::vector<std::string> schedule_paths;
  int threads = 0, repeat = 20, rounds = 1;  // threads: set by add_threads_option
  uint64_t seed = 1;
  bool print_loops = false, print_stmt = false;
};

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read schedule file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One schedule of the comparison: its label (the file, or "unscheduled"), kernel, inputs and outputs.
struct Candidate {
  std::string label;
  Schedule schedule;
  Kernel kernel;
  std::vector<PrepackedInput> packed;  // the weights this kernel reads packed, as a compiled model packs them
  std::vector<NDArray> inputs, outs;
  std::vector<double> round_ms;  // the median of each round
};

// Median of `repeat` single runs, each after evicting what `cache` names (after 2 untimed runs).
double median_ms_from(const Candidate &c, autotune::CacheState cache, const Task &task, int repeat,
                      std::vector<NDArray> &outs) {
  if (cache == autotune::CacheState::kWarm) return c.kernel.median_ms(c.inputs, outs, 2, repeat);
  for (int i = 0; i < 2; i++) c.kernel.run(c.inputs, outs);
  std::vector<double> ms;
  for (int i = 0; i < repeat; i++) ms.push_back(autotune::run_after_evicting_ms(c.kernel, cache, task, c.inputs, outs));
  return tuning_log::median_of(ms);
}

void run_op(const RunOpArgs &a) {
  set_num_threads(a.threads);
  const autotune::CacheState cache = autotune::parse_cache_state(a.cache);
  ops::OpWorkload w;
  const Task task = op_task(a.op, ops::parse_int_list(a.shape), Target{}, a.threads, &w);
  std::vector<std::string> paths = a.schedule_paths;
  if (paths.empty()) paths.push_back("");
  std::vector<Candidate> cands;
  for (const auto &path : paths) {
    Schedule s(w.outputs);
    std::string label = path.empty() ? "unscheduled" : path;
    if (path == kDefaultSchedule) {  // what `compile` uses for this task without a record
      ScheduleChoice c = autotune::analytical_schedule(task);
      s = c.schedule;
      label = "default (" + c.detail + ")";
    } else if (!path.empty()) {
      try {
        s = replay(w.outputs, trace_from_json(read_file(path), w.outputs));
      } catch (const Error &e) {
        throw Error("schedule file '" + path + "': " + e.what());
      }
    }
    auto t0 = std::chrono::steady_clock::now();
    BuildOptions bo;
    bo.prepacked = prepackable_inputs(s, task.constant_inputs);
    Kernel k = Kernel::build(s, task.target, bo);
    double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: built in %.0f ms\n", label.c_str(), build_ms);
    cands.push_back(Candidate{label, std::move(s), std::move(k), bo.prepacked, {}, {}, {}});
  }
  const Schedule &s0 = cands[0].schedule;
  std::vector<NDArray> inputs;
  for (size_t i = 0; i < s0.inputs().size(); i++)
    inputs.push_back(NDArray::random(s0.inputs()[i].shape(), s0.inputs()[i].dtype(), a.seed + i));
  for (auto &c : cands) {
    c.inputs = inputs;
    for (const auto &p : c.packed) c.inputs[p.input] = pack_input(inputs[p.input], p);
  }
  // Reference: the plain interpreter for small ops; the unscheduled kernel (checked against the
  // interpreter by the test suite) where interpreting would take minutes.
  double flops = flop_count(w.outputs);
  std::vector<NDArray> ref;
  const char *ref_name = flops < 5e7 ? "interpreter" : "unscheduled kernel";
  if (flops < 5e7) ref = interpret(w.outputs, s0.inputs(), inputs);
  else ref = Kernel::build(Schedule(w.outputs)).run(inputs);
  std::vector<std::string> wrong;
  for (auto &c : cands) {
    c.outs = c.kernel.run(c.inputs);
    for (size_t i = 0; i < c.outs.size(); i++) {
      auto [rtol, atol] = default_tolerance(c.outs[i].dtype());
      std::string where;
      bool close = all_close(c.outs[i], ref[i], rtol, atol * 10, &where);
      std::printf("%s: output %s %s[%s]: max |diff| vs %s = %.3g %s\n", c.label.c_str(), w.outputs[i].name().c_str(),
                  c.outs[i].dtype().str().c_str(), shape_str(c.outs[i].shape()).c_str(), ref_name,
                  max_abs_diff(c.outs[i], ref[i]), close ? "OK" : ("MISMATCH " + where).c_str());
      if (!close) wrong.push_back(c.label);
    }
  }
  // Rounds interleave the schedules (reversed every other round), so that a
  // slow minute of a noisy machine falls on all of them alike.
  for (int r = 0; r < a.rounds; r++)
    for (size_t j = 0; j < cands.size(); j++) {
      Candidate &c = cands[r % 2 ? cands.size() - 1 - j : j];
      c.round_ms.push_back(median_ms_from(c, cache, task, a.repeat, c.outs));
    }
  const double first_ms = tuning_log::median_of(cands[0].round_ms);
  for (const auto &c : cands) {
    double ms = tuning_log::median_of(c.round_ms);
    std::printf("%s %s threads=%d cache=%s: median %.4f ms over %d runs", a.op.c_str(), a.shape.c_str(), a.threads,
                a.cache.c_str(), ms, a.repeat);
    if (a.rounds > 1) {
      auto [lo, hi] = std::minmax_element(c.round_ms.begin(), c.round_ms.end());
      std::printf(" x %d rounds (%.4f..%.4f)", a.rounds, *lo, *hi);
    }
    std::printf(", %.2f GFLOP/s", flops / (ms * 1e6));
    if (cands.size() > 1) std::printf(", %.3fx the first's speed  [%s]", first_ms / ms, c.label.c_str());
    std::printf("\n");
  }
  if (a.print_loops)
    for (const auto &c : cands) std::printf("%s:\n%s", c.label.c_str(), c.kernel.loop_nest().str().c_str());
  if (a.print_stmt)
    for (const auto &c : cands) std::printf("%s:\n%s\n", c.label.c_str(), c.kernel.lowered_stmt().c_str());
  if (!a.asm_path.empty()) compile_assembly(s0, a.asm_path, a.op);
  if (!wrong.empty()) throw RuntimeError("op '" + a.op + "': schedule " + wrong[0] + " does not match the reference");
}
}  // namespace

void add_run_op_command(CLI::App &app) {
  auto args = std::make_shared<RunOpArgs>();
  auto *cmd = app.add_subcommand("run-op",
                                 "Build an operator with a schedule (or several, side by side), check it against the "
                                 "reference, time it");
  cmd->add_option("--op", args->op, "operator name (see `tetune ops`)")->required();
  cmd->add_option("--shape", args->shape, "the operator's --shape form (`tetune ops`), e.g. matmul 1024,1024,1024")->required();
  cmd->add_option("--schedule", args->schedule_paths,
                  "schedule trace JSON, or `default` for the analytical default schedule that `compile` uses without a "
                  "record (none: unscheduled); give it more than once to compare schedules side by side");
  add_threads_option(cmd, args->threads, "worker threads");
  cmd->add_option("--repeat", args->repeat, "timed runs per round (median reported)")->check(positive());
  cmd->add_option("--rounds", args->rounds, "rounds that interleave the schedules; the median over rounds is reported")
      ->check(positive());
  cmd->add_option("--seed", args->seed, "random input seed");
  add_cache_option(cmd, args->cache);
  cmd->add_option("--emit-asm", args->asm_path, "also write the (first) kernel's assembly (host target) to this file");
  cmd->add_flag("--print-loops", args->print_loops, "print the lowered loop nest");
  cmd->add_flag("--print-stmt", args->print_stmt, "print Halide's lowered statement (pseudo-code)");
  cmd->callback([args] { run_op(*args); });
}

}  // namespace cli
}  // namespace tetune
