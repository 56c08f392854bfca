// tetune tune-op: auto-tune one operator of the registry (`tetune ops`) into a tuning log.
//
//   tetune tune-op --op matmul --shape 1024,1024,1024 --trials 256 [--threads 2]
//       [--policy evolutionary|annealing|random] [--db PATH] [--resume] [--no-transfer] [--plot curve.svg]
//       [--target host|cuda|HALIDE_TARGET] [--remote-command 'CMD {dir} {runner}'] [--runner PATH]
//   A GPU target is always measured by tetune_measure_runner (CUDA events), on
//   this machine unless --remote-command sends the batch elsewhere.
//   shapes as `tetune ops` lists them: matmul M,N,K ; conv2d N,C,H,W,K,R,S[,stride[,pad]] (NCHW, KCRS weights)
#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "autotune/policy/policy.h"
#include "autotune/tuner.h"
#include "codegen/kernel.h"
#include "base/errors.h"
#include "te/ops/registry.h"
#include "tools/cli_options.h"
#include "tools/commands.h"
#include "tools/progress_line.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/log_uri.h"
#include "workload/op_task.h"

namespace tetune {
namespace cli {
namespace {

std::string fmt_time(double s) {
  char b[32];
  if (s >= 3600) std::snprintf(b, sizeof b, "%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  else std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  return b;
}

void write_svg(const std::string &path, const std::vector<double> &curve, const std::string &title) {
  const double W = 640, H = 400, L = 60, R = 20, T = 40, B = 50;
  double ymax = 1e-9;
  for (double v : curve) ymax = std::max(ymax, v);
  ymax *= 1.1;
  size_t n = std::max<size_t>(curve.size(), 2);
  auto X = [&](size_t i) { return L + (W - L - R) * static_cast<double>(i) / (n - 1); };
  auto Y = [&](double v) { return H - B - (H - T - B) * v / ymax; };
  std::ofstream o(path);
  if (!o) throw Error("tune-op: cannot write " + path);
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << W / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">" << title << "</text>\n";
  o << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  o << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  for (int k = 0; k <= 4; k++) {
    double v = ymax * k / 4;
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    o << "<text x=\"" << L - 6 << "\" y=\"" << Y(v) + 4 << "\" text-anchor=\"end\">" << b << "</text>\n";
    o << "<line x1=\"" << L << "\" y1=\"" << Y(v) << "\" x2=\"" << W - R << "\" y2=\"" << Y(v) << "\" stroke=\"#ddd\"/>\n";
  }
  o << "<text x=\"" << L << "\" y=\"" << H - B + 18 << "\">1</text>\n";
  o << "<text x=\"" << W - R << "\" y=\"" << H - B + 18 << "\" text-anchor=\"end\">" << curve.size() << "</text>\n";
  o << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">trials</text>\n";
  o << "<text x=\"16\" y=\"" << (T + H - B) / 2 << "\" transform=\"rotate(-90 16 " << (T + H - B) / 2
    << ")\" text-anchor=\"middle\">best GFLOP/s</text>\n";
  o << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
  for (size_t i = 0; i < curve.size(); i++) o << X(i) << "," << Y(curve[i]) << " ";
  o << "\"/>\n</svg>\n";
}

// oneDNN sgemm GFLOP/s (median of 5 after a warm-up); 0 if it fails.
double onednn_gemm_gflops(int64_t M, int64_t N, int64_t K, int threads) {
  setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  std::vector<float> a(M * K, 0.5f), b(K * N, 0.25f), c(M * N, 0.0f);
  auto run = [&] {
    return dnnl_sgemm('N', 'N', M, N, K, 1.0f, a.data(), K, b.data(), N, 0.0f, c.data(), N) == dnnl_success;
  };
  if (!run()) return 0;
  std::vector<double> ts;
  for (int r = 0; r < 5; r++) {
    int number = 0;
    auto t0 = std::chrono::steady_clock::now();
    double el = 0;
    do {
      run();
      number++;
      el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (el < 0.02);
    ts.push_back(el / number);
  }
  std::sort(ts.begin(), ts.end());
  return 2.0 * M * N * K / ts[2] / 1e9;
}

}  // namespace

void add_tune_op_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("tune-op", "auto-tune one operator and store every measurement in the tuning log");
  struct Args {
    std::string op = "matmul", shape, policy = "evolutionary", db, plot, space, cost_model = "xgb", target = "host";
    int trials = 64, threads = 0, batch = 16;  // threads: set by add_threads_option
    bool resume = false, no_library = false, no_shipped = false, no_transfer = false;
    std::string remote_command, runner, cache;  // cache: set by add_cache_option
    uint64_t seed = 0;
    double timeout = 20;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--op", a->op, "an operator of `tetune ops` (matmul, conv2d, ...)")->required();
  cmd->add_option("--shape", a->shape, "the operator's --shape form (`tetune ops`): matmul M,N,K; conv2d N,C,H,W,K,R,S[,stride[,pad]]")->required();
  cmd->add_option("--trials", a->trials, "total measured records wanted")->check(positive());
  add_threads_option(cmd, a->threads, "kernel worker threads (part of the target the records are stored under)");
  cmd->add_option("--policy", a->policy, "evolutionary | annealing | random");
  cmd->add_option("--cost-model", a->cost_model, "xgb | random");
  cmd->add_option("--space", a->space, "search space (default: ansor when linked, else basic)");
  cmd->add_option("--batch", a->batch, "candidates per batch")->check(positive());
  add_db_option(cmd, a->db, "tuning log records are written into (default: the user's log, $TETUNE_DB, else "
                           "$XDG_CACHE_HOME/tetune/tetune.db); the shipped log is read too");
  cmd->add_flag("--no-shipped-log", a->no_shipped, "do not read the shipped log (tuning_logs/shipped.db)");
  cmd->add_flag("--resume", a->resume, "continue: stored records count towards --trials and train the model");
  cmd->add_flag("--no-transfer", a->no_transfer,
                "do not warm-start from records of this operator on other targets or at other shapes "
                "(measured first, cost model trained on them; autotune/transfer.h)");
  cmd->add_option("--plot", a->plot, "write the tuning curve (best GFLOP/s vs trials) as SVG");
  cmd->add_option("--seed", a->seed, "random seed");
  cmd->add_option("--timeout", a->timeout, "seconds per candidate (compile + check + timing)")->check(positive());
  cmd->add_flag("--no-library", a->no_library, "skip the oneDNN comparison");
  add_cache_option(cmd, a->cache);
  cmd->add_option("--target", a->target, "host | cuda | a Halide target string (default host)");
  cmd->add_option("--remote-command", a->remote_command,
                  "measure elsewhere: /bin/sh command run per batch with {dir} (the batch directory) and {runner} "
                  "substituted; it must leave {dir}/results.json (README: Measure on another machine)");
  cmd->add_option("--runner", a->runner, "tetune_measure_runner for --remote-command / GPU targets "
                                         "(default $TETUNE_MEASURE_RUNNER, else next to tetune, else on PATH)");
  cmd->callback([a] {
    // The registry's operator, the same compute `run-op` and the benchmarks build, so a tuned schedule replays there.
    Target target{a->target};
    const bool gpu = target.is_gpu();  // raises CodegenError naming an unknown target
    if (a->remote_command.empty()) require_measurable_here(target, "--target");
    const std::vector<int64_t> dims = ops::parse_int_list(a->shape);
    tetune::Task task = op_task(a->op, dims, target, a->threads);
    const std::string &name = task.name;
    autotune::TuneOptions o;
    o.trials = a->trials;
    o.batch_size = a->batch;
    o.policy = a->policy;
    o.cost_model = a->cost_model;
    o.space = a->space;
    o.db_path = a->db;
    if (!a->no_shipped) o.read_dbs = {tuning_log::shipped_log_path()};  // "" (none found) is skipped
    o.resume = a->resume;
    o.transfer = !a->no_transfer;
    o.seed = a->seed;
    o.op_name = a->op;
    o.measure.timeout_s = a->timeout;
    o.measure.cache = autotune::parse_cache_state(a->cache);
    // (tune() measures a GPU target through the runner with or without these.)
    if (!a->remote_command.empty() || !a->runner.empty()) {
      autotune::RemoteOptions ro;
      if (!a->remote_command.empty()) ro.command = a->remote_command;
      ro.runner = a->runner;
      o.remote = ro;
    }
    auto line = std::make_shared<ProgressLine>(stderr);
    o.progress = [line](const autotune::TuneProgress &p) {
      int w = 30, fill = p.trials_total ? w * p.trials_done / p.trials_total : w;
      char state[160];
      std::snprintf(state, sizeof state, "[%s%s] %d/%d  best %.2f GFLOP/s  errors %d", std::string(fill, '#').c_str(),
                    std::string(w - fill, '.').c_str(), p.trials_done, p.trials_total, p.best_gflops, p.errors);
      line->update(state, "elapsed " + fmt_time(p.elapsed_s) + "  ETA " + fmt_time(p.eta_s));
    };
    std::fprintf(stderr, "tune-op %s: %.3f GFLOP per run, target %s, %d threads, policy %s, space %s, measured %s\n",
                 name.c_str(), task.flops / 1e9, a->target.c_str(), a->threads, a->policy.c_str(),
                 autotune::space_name(task, o).c_str(),
                 o.remote || gpu ? ("by `" + o.remote.value_or(autotune::RemoteOptions{}).command + "`").c_str()
                                 : "here, in child processes");
    std::fprintf(stderr, "tune-op: records go into %s%s\n", tuning_log::redact_location(a->db.empty() ? tuning_log::user_log_path() : a->db).c_str(),
                 o.read_dbs.empty() || o.read_dbs[0].empty() ? "" : ("; also reading the shipped log " + o.read_dbs[0]).c_str());
    autotune::TuneResult r = autotune::tune(task, o);
    line->finish();
    std::printf("task: %s\ntarget: %s\nrecords: %d (measured now %d, errors %d) in %.1f s (search %.1f s, measure %.1f s)\n",
                name.c_str(), r.target_key.c_str(), r.total_records, r.measured, r.errors, r.elapsed_s, r.search_s, r.measure_s);
    if (r.measured > 0) std::printf("throughput: %.2f candidates/s\n", r.measured / std::max(r.elapsed_s, 1e-9));
    if (!r.transfer_summary.empty())
      std::printf("transfer: %d of %d transferred schedules measured now: %s\n", r.transferred_measured, r.transferred,
                  r.transfer_summary.c_str());
    if (r.space_exhausted)
      std::printf("note: the search found no unmeasured candidate in 3 batches and stopped (a small space): %d records, fewer than the %d trials asked\n",
                  r.total_records, a->trials);
    if (!r.best) {
      std::printf("no successful candidate\n");
    } else {
      std::printf("best: %.3f ms, %.2f GFLOP/s (trial %d, measured %d times)\nschedule: %s\n", r.best->median_ms,
                  r.best->gflops, r.best->trial_index, r.best_measurements, r.best->schedule_json.c_str());
      if (o.confirm_top > 0 && r.best_measurements < 1 + o.confirm_repeats)
        std::printf("note: the best schedule was measured %d time(s), fewer than a re-measured top schedule (%d): "
                    "its cost may be one lucky measurement (budget too small for confirmation, or its re-measurements "
                    "failed)\n",
                    r.best_measurements, 1 + o.confirm_repeats);
      if (a->op == "matmul" && !a->no_library && (o.remote || gpu)) {
        std::printf("no library comparison: the kernels ran %s (bench/gpu:gemm compares with cuBLAS)\n",
                    gpu ? "on a GPU" : "where --remote-command sent them");
      } else if (a->op == "matmul" && !a->no_library) {
        double lib = onednn_gemm_gflops(dims[0], dims[1], dims[2], a->threads);
        if (lib > 0) std::printf("oneDNN sgemm: %.2f GFLOP/s; tuned / oneDNN = %.3f\n", lib, r.best->gflops / lib);
      }
    }
    if (!a->plot.empty()) {
      write_svg(a->plot, r.curve, name + " (" + a->policy + ")");
      std::printf("curve: %s\n", a->plot.c_str());
    }
  });
}

}  // namespace cli
}  // namespace tetune
