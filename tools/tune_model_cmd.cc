// tetune tune: auto-tune every task of an ONNX model into the tuning log.
//
//   tetune tune --model m.onnx --input-shape x=1,3,48,320 (--trials N | --time-budget 15m)
//       [--db PATH] [--threads N] [--policy evolutionary] [--batch 16] [--space ansor]
//
// Tasks = fused kernel groups deduplicated by workload key (weight =
// occurrences), and the direct form of the convs the model runs by Winograd,
// so that compile can take the faster form (relay_import/conv_forms.h). Trials go to tasks by the gradient-based task scheduler
// (autotune/task_scheduler.h); every record is committed as measured, so
// Ctrl-C (finishes the measurement in flight, then stops) or the deadline
// loses nothing and a rerun continues (stored records count towards --trials).
// Tasks below --small-task-flops (elementwise, copies) get at most
// --small-task-trials records (0: keep the default schedule) while they take
// under ModelTuneOptions::small_task_heavy_share of the estimated latency.
// Progress goes to stderr; the summary table to stdout.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "autotune/measure/measure_hooks.h"
#include "model_tuning/model_tuning.h"
#include "model_tuning/in_model_pick.h"
#include "model_tuning/model_latency.h"
#include "autotune/policy/policy.h"
#include "relay_import/onnx_importer.h"
#include "base/errors.h"
#include "base/reread_speedup.h"
#include "tools/cli_options.h"
#include "tools/commands.h"
#include "tools/progress_line.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/log_uri.h"

namespace tetune {
namespace cli {
namespace {

std::string fmt_dur(double s) {
  char b[32];
  if (s < 0) return "-";
  if (s >= 3600) std::snprintf(b, sizeof b, "%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  else std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  return b;
}

std::string fmt_ms(double ms) {
  char b[32];
  if (!std::isfinite(ms)) return "-";
  std::snprintf(b, sizeof b, "%.4f", ms);
  return b;
}

std::string fmt_pct(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * fraction);
  return b;
}

// "15m", "90s", "1h30m", "2h", "600" (seconds)
double parse_duration(const std::string &s) {
  double total = 0, num = 0;
  bool have = false, any = false;
  std::string digits;
  for (size_t i = 0; i <= s.size(); i++) {
    char c = i < s.size() ? s[i] : '\0';
    if ((c >= '0' && c <= '9') || c == '.') {
      digits += c;
      continue;
    }
    if (digits.empty()) {
      if (c == '\0' && any) break;
      throw AttributeError("tune: bad --time-budget '" + s + "' (e.g. 15m, 90s, 1h30m)");
    }
    try {
      num = std::stod(digits);
    } catch (...) {
      throw AttributeError("tune: bad --time-budget '" + s + "'");
    }
    digits.clear();
    have = true;
    double mult = 1;
    if (c == 'h') mult = 3600;
    else if (c == 'm') mult = 60;
    else if (c == 's' || c == '\0') mult = 1;
    else throw AttributeError("tune: bad --time-budget unit '" + std::string(1, c) + "' in '" + s + "'");
    total += num * mult;
    any = true;
    if (c == '\0') break;
  }
  if (!have || total <= 0) throw AttributeError("tune: bad --time-budget '" + s + "'");
  return total;
}

}  // namespace

void add_tune_model_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("tune", "auto-tune every task of an ONNX model (gradient-based task scheduler)");
  struct Args {
    std::string model, db, policy = "evolutionary", cost_model = "xgb", space, time_budget;
    std::vector<std::string> shapes;
    int trials = 0, threads = 0, batch = 16, small_trials = 2, warmup = -1;  // threads: set by add_threads_option
    double small_flops = 1e5, timeout = 20;
    uint64_t seed = 0;
    bool no_baseline = false, no_shipped = false, no_transfer = false, no_model_run = false;
    int model_runs = 20;
    std::string layout;  // set by add_layout_option
    std::string cache;   // set by add_cache_option
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--model", a->model, "ONNX model file")->required();
  cmd->add_option("--input-shape", a->shapes, "NAME=D1,D2,... for each dynamic input (repeatable)");
  cmd->add_option("--trials", a->trials, "total records over all tasks (stored ones count)")->check(positive());
  cmd->add_option("--time-budget", a->time_budget, "wall-clock budget of the tuning (references, search, and the best schedules timed again as in a model), e.g. 15m, 90s, 1h30m; the comparison inside the model and the final compile and run come after it");
  add_db_option(cmd, a->db, "tuning log records are written into (default: the user's log, $TETUNE_DB, else "
                           "$XDG_CACHE_HOME/tetune/tetune.db); the shipped log is read too");
  cmd->add_flag("--no-shipped-log", a->no_shipped, "do not read the shipped log (tuning_logs/shipped.db)");
  add_threads_option(cmd, a->threads, "kernel worker threads (part of the target the records are stored under)");
  cmd->add_option("--policy", a->policy, "evolutionary | annealing | random");
  cmd->add_option("--cost-model", a->cost_model, "xgb | random");
  cmd->add_option("--space", a->space, "search space (default: ansor)");
  cmd->add_option("--batch", a->batch, "trials per scheduler step (and per warm-up)")->check(positive());
  cmd->add_option("--seed", a->seed, "random seed");
  cmd->add_option("--warmup-trials", a->warmup, "warm-up records per task (default: 1 = the default-schedule baseline; --batch with --no-baseline)")
      ->check(non_negative());
  cmd->add_option("--timeout", a->timeout, "seconds per candidate (compile + check + timing)")->check(positive());
  cmd->add_option("--small-task-flops", a->small_flops, "tasks with fewer flops get at most --small-task-trials, until one takes " +
                      std::to_string(static_cast<int>(autotune::ModelTuneOptions().small_task_heavy_share * 100)) +
                      "% of the estimated latency")
      ->check(non_negative());
  cmd->add_option("--small-task-trials", a->small_trials, "records cap of small tasks (0 = skip them)")->check(non_negative());
  cmd->add_flag("--no-baseline", a->no_baseline, "do not store the default schedule as a new task's first record");
  cmd->add_flag("--no-transfer", a->no_transfer,
                "do not warm-start a task with few records from its records on other targets or its operator's at "
                "other shapes (autotune/transfer.h)");
  add_cache_option(cmd, a->cache, true);
  cmd->add_option("--model-runs", a->model_runs,
                  "at the end, compile the model with the records (as `compile` does) and time this many runs against the "
                  "estimate (in rounds, in turns with the exports of the comparison inside the model)")
      ->check(positive());
  cmd->add_flag("--no-model-run", a->no_model_run,
                "skip the final steps: each task's pick against its default, and each conv's direct and Winograd forms, "
                "timed inside the model (exported, run in turns; the faster there recorded to win), and the final "
                "compile and run");
  add_layout_option(cmd, a->layout);
  cmd->callback([a] {
    autotune::ModelTuneOptions o;
    o.total_trials = a->trials;
    if (!a->time_budget.empty()) o.time_budget_s = parse_duration(a->time_budget);
    if (o.total_trials <= 0 && o.time_budget_s <= 0) throw AttributeError("tune: give --trials N or --time-budget T");
    std::map<std::string, Shape> shapes;
    for (const auto &s : a->shapes)
      for (auto &kv : relay::parse_input_shapes(s)) shapes[kv.first] = kv.second;
    int kernel_groups = 0;
    auto tasks = autotune::extract_model_tasks(a->model, shapes, a->threads, &kernel_groups, a->layout);
    o.batch = a->batch;
    o.policy = a->policy;
    o.cost_model = a->cost_model;
    o.space = a->space;
    o.db_path = a->db;
    if (!a->no_shipped) o.read_dbs = {tuning_log::shipped_log_path()};  // "" (none found) is skipped
    std::fprintf(stderr, "tune: records go into %s%s\n", tuning_log::redact_location(a->db.empty() ? tuning_log::user_log_path() : a->db).c_str(),
                 o.read_dbs.empty() || o.read_dbs[0].empty() ? "" : ("; also reading the shipped log " + o.read_dbs[0]).c_str());
    o.seed = a->seed;
    o.measure.timeout_s = a->timeout;
    o.cache_by_weights = a->cache == "auto";
    if (!o.cache_by_weights) o.measure.cache = autotune::parse_cache_state(a->cache);
    o.small_task_flops = a->small_flops;
    o.small_task_trials = a->small_trials;
    o.measure_baseline = !a->no_baseline;
    o.transfer = !a->no_transfer;
    o.warmup_trials = a->warmup;
    o.stop = autotune::install_sigint_stop();
    int small = 0;
    double gflop = 0;
    for (const auto &t : tasks) {
      small += t.task.flops < a->small_flops;
      gflop += t.task.weight * t.task.flops / 1e9;
    }
    std::fprintf(stderr,
                 "tune %s: %d kernel groups -> %d tasks (%d small: <= %d trials below %g%% of the latency), %.3f GFLOP per run, %d threads, "
                 "policy %s, space %s, budget %s%s%s\n",
                 a->model.c_str(), kernel_groups, static_cast<int>(tasks.size()), small, a->small_trials,
                 o.small_task_heavy_share * 100, gflop,
                 a->threads, a->policy.c_str(),
                 (a->space.empty() ? autotune::policy::default_space_name() : a->space).c_str(),
                 a->trials > 0 ? (std::to_string(a->trials) + " trials").c_str() : "",
                 a->trials > 0 && o.time_budget_s > 0 ? " / " : "",
                 o.time_budget_s > 0 ? fmt_dur(o.time_budget_s).c_str() : "");
    if (o.cache_by_weights) {
      const std::vector<autotune::CacheState> states = autotune::timing_states(tasks, o);
      const auto flushed = std::count(states.begin(), states.end(), autotune::CacheState::kModel);
      const CacheSizes caches = host_cache_sizes();
      const double weights = autotune::model_weight_bytes(tasks);
      // The re-read is measured (memoized) only where the weights fit the reported L3, as model_weights_stay_cached does.
      const bool above_l3 = autotune::model_weights_above_reported_l3(weights, caches);
      char why[96];
      if (above_l3)
        std::snprintf(why, sizeof why, "above the sysfs L3 of %.1f MiB", caches.l3_bytes / 1048576.0);
      else
        std::snprintf(why, sizeof why, "sysfs L3 %.1f MiB, re-read %.2fx as fast as from memory",
                      caches.l3_bytes / 1048576.0, reread_speedup(static_cast<int64_t>(weights)));
      std::fprintf(stderr,
                   "tune: --cache auto: %d tasks timed with their weights flushed (weights above the %.1f MiB L2, the "
                   "model's %.1f MiB %s: %s), %d warm\n",
                   static_cast<int>(flushed), caches.l2_bytes / 1048576.0, weights / 1048576.0,
                   autotune::model_weights_stay_cached(weights, caches) ? "stay cached" : "come from memory", why,
                   static_cast<int>(states.size() - flushed));
    }
    int last_task = -2;
    int ntasks = static_cast<int>(tasks.size());
    ProgressLine line(stderr);
    o.progress = [&](const autotune::ModelTuneProgress &p) {
      if (p.task != last_task) line.finish();  // a new task starts a new line on a terminal too
      last_task = p.task;
      if (p.task < 0) return;
      const auto &t = tasks[p.task].task;
      std::string budget = p.trials_budget > 0 ? std::to_string(p.trials_used) + "/" + std::to_string(p.trials_budget)
                                               : std::to_string(p.trials_used);
      char state[256];
      std::snprintf(state, sizeof state, "[%d/%d] %-28.28s w=%-2g %s %3d/%-3d best %s ms | model ~%s ms%s | trials %s | errors %d |",
                    p.task + 1, ntasks, t.name.c_str(), t.weight, p.warmup ? "warm" : "grad", p.task_trials,
                    p.task_target, fmt_ms(p.task_best_ms).c_str(), fmt_ms(p.estimated_ms).c_str(),
                    p.tasks_without_result ? (" (+" + std::to_string(p.tasks_without_result) + " w/o result)").c_str()
                                           : "",
                    budget.c_str(), p.errors);
      line.update(state, fmt_dur(p.elapsed_s) + " elapsed" +
                             (p.time_left_s >= 0 ? ", left " + fmt_dur(p.time_left_s) : std::string()));
    };
    autotune::ModelTuneResult r = autotune::tune_model(tasks, o);
    line.finish();
    // Warm timing ranked the candidates; tune_model then timed each task's top few and its default with their weights flushed,
    // as the model runs them, and the fastest so is what `compile` takes and what the estimate sums.
    double est = r.estimated_after_ms;
    std::string how;
    if (r.estimated_as_in_model_ms > 0) {
      how = " (each task's best of its top " + std::to_string(o.confirm_top) +
            " and its default schedule timed again with the weights flushed, as in a model, for " +
            std::to_string(r.picks_timed_as_in_model) + " of " + std::to_string(r.confirmable_tasks) +
            " tasks with weights; " + fmt_ms(est) + " ms as the search ranked them)";
      est = r.estimated_as_in_model_ms;
    }
    std::printf("%-4s %-34s %6s %7s %10s %10s %9s\n", "#", "task", "weight", "trials", "default ms", "best ms",
                "GFLOP/s");
    for (size_t i = 0; i < r.tasks.size(); i++) {
      const auto &t = r.tasks[i];
      std::printf("%-4zu %-34.34s %6g %7d %10s %10s %9.2f%s\n", i + 1, t.name.c_str(), t.weight, t.trials,
                  fmt_ms(t.baseline_ms).c_str(), fmt_ms(t.best_ms).c_str(), t.gflops,
                  t.small ? "  (small)" : t.alternative ? "  (direct form of Winograd convs: compile takes the faster)" : "");
    }
    std::printf("trials: %d total (%d measured now, %d errors) in %.1f s, %d scheduler steps\n", r.trials_used,
                r.measured, r.errors, r.elapsed_s, r.steps);
    std::printf("estimated model latency (sum weight*best): before %s ms (%d tasks w/o result), after %s ms (%d w/o "
                "result); default schedules %s ms\n",
                fmt_ms(r.estimated_before_ms).c_str(), r.without_result_before, fmt_ms(r.estimated_after_ms).c_str(),
                r.without_result_after, r.baseline_ms > 0 ? fmt_ms(r.baseline_ms).c_str() : "-");
    if (a->no_model_run) return;
    const relay::TunedLogs logs{a->db, !a->no_shipped, ""};
    // Timed alone, a pick can beat its default and still lose to it in the model (model_tuning/in_model_pick.h):
    // both run in the model, in turns, and the faster there is recorded to win; so do each conv's two forms. Then the
    // model as `compile` now builds it runs in turns with them: their kernels' times there are the estimate, its own
    // runs the measured latency, in the same phases of the machine.
    // Not where another machine measured (MPI workers, a remote runner): this one's model run says nothing of theirs.
    autotune::ModelLatency lat;
    std::string timed_how = "median of " + std::to_string(a->model_runs) + " runs";
    if (!autotune::measure_hooks().make_measurer) {
      std::fprintf(stderr, "timing each task's pick against its default schedule, and each conv's two forms, inside the model, "
                           "then the model with the picks in turns with them (--no-model-run skips this)\n");
      constexpr int kInModelRounds = 3, kInModelRuns = 10;
      const int final_runs = (a->model_runs + kInModelRounds - 1) / kInModelRounds;
      const autotune::InModelPicks im = autotune::choose_in_model(a->model, shapes, a->threads, logs, a->db, kInModelRounds,
                                                                  kInModelRuns, final_runs, a->layout);
      int compared = 0, kept_default = 0;
      std::string kept;
      for (const auto &t : im.tasks) {
        compared += t.compared;
        kept_default += t.default_faster;
        if (t.default_faster) kept += " " + t.name + " (" + fmt_ms(t.pick_ms) + " -> " + fmt_ms(t.default_ms) + " ms)";
      }
      std::printf("in the model (%d rounds x %d runs each, in turns): tuned %s ms, default schedules %s ms; %d of %d tasks "
                  "compared with their default, %d keep the default, faster there:%s\n",
                  im.rounds, im.runs_per_round, fmt_ms(im.tuned_model_ms).c_str(), fmt_ms(im.default_model_ms).c_str(),
                  compared, static_cast<int>(im.tasks.size()), kept_default, kept.empty() ? " none" : kept.c_str());
      if (im.convs_compared)
        std::printf("conv forms in the model: %d convs timed direct and by Winograd, %d switch to the form faster there\n",
                    im.convs_compared, im.convs_switched);
      std::fflush(stdout);
      how = " (the median run of the kernels' times in the model, of each task's pick or default, whichever ran faster "
            "there; " +
            fmt_ms(est) + " ms as the tasks were timed alone)";
      est = im.kernels_ms;
      lat = im.final_model;
      timed_how = std::to_string(im.rounds) + " rounds x " + std::to_string(final_runs) +
                  " runs, in turns with the exports the estimate was timed in";
    } else {
      // The estimate sums kernels; the model's own run says what the records give, the time between kernels included.
      std::fprintf(stderr, "compiling the model with the records to time it (--no-model-run skips this)\n");
      lat = autotune::measure_model_latency(a->model, shapes, a->threads, logs, a->model_runs, a->layout);
    }
    std::printf("model latency: estimated %s ms%s, measured %s ms (%s, %d threads; %d/%d tasks from "
                "records, compiled in %.1f s)%s\n",
                fmt_ms(est).c_str(), how.c_str(), fmt_ms(lat.median_ms).c_str(), timed_how.c_str(), a->threads,
                lat.tuned_tasks, lat.tasks, lat.compile_s,
                est > 0 ? (": the estimate is " + fmt_pct(std::abs(est / lat.median_ms - 1)) +
                           (est < lat.median_ms ? " low" : " high"))
                              .c_str()
                        : "");
  });
}

}  // namespace cli
}  // namespace tetune
