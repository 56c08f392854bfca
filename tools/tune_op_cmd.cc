// tetune tune-op: auto-tune one operator (matmul or conv2d) into a tuning log.
//
//   tetune tune-op --op matmul --shape 1024,1024,1024 --trials 256 [--threads 2]
//       [--policy evolutionary|annealing|random] [--db PATH] [--resume] [--plot curve.svg]
//   shapes: matmul M,N,K ; conv2d N,C,H,W,K,R,S,stride,pad (NCHW, KCRS weights)
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
#include "te/errors.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {
namespace {

std::vector<int64_t> parse_shape(const std::string &s) {
  std::vector<int64_t> v;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    try {
      v.push_back(std::stoll(tok));
    } catch (...) {
      throw AttributeError("tune-op: bad --shape element '" + tok + "' in '" + s + "'");
    }
  }
  return v;
}

std::vector<Tensor> build_op(const std::string &op, const std::vector<int64_t> &d, std::string *name) {
  if (op == "matmul") {
    if (d.size() != 3) throw AttributeError("tune-op: matmul --shape is M,N,K");
    int64_t M = d[0], N = d[1], K = d[2];
    Tensor A = placeholder({M, K}, float32(), "A");
    Tensor B = placeholder({K, N}, float32(), "B");
    IterVar k = reduce_axis(K, "k");
    Tensor C = compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); },
                       "C", "matmul", {"i", "j"});
    *name = "matmul_" + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    return {C};
  }
  if (op == "conv2d") {
    if (d.size() != 9) throw AttributeError("tune-op: conv2d --shape is N,C,H,W,K,R,S,stride,pad");
    int64_t N = d[0], C = d[1], H = d[2], W = d[3], K = d[4], R = d[5], S = d[6], st = d[7], pad = d[8];
    if (st <= 0 || pad < 0) throw AttributeError("tune-op: conv2d stride must be > 0 and pad >= 0");
    int64_t OH = (H + 2 * pad - R) / st + 1, OW = (W + 2 * pad - S) / st + 1;
    if (OH <= 0 || OW <= 0) throw AttributeError("tune-op: conv2d output would be empty");
    Tensor X = placeholder({N, C, H, W}, float32(), "X");
    Tensor Wt = placeholder({K, C, R, S}, float32(), "W");
    Tensor P = X;
    if (pad > 0) {
      P = compute({N, C, H + 2 * pad, W + 2 * pad},
                  [&](const std::vector<Var> &i) {
                    Expr h = i[2], w = i[3];
                    Expr in = h >= Expr(pad) && h < Expr(H + pad) && w >= Expr(pad) && w < Expr(W + pad);
                    return select(in, X(i[0], i[1], h - Expr(pad), w - Expr(pad)), Expr(0.0f));
                  },
                  "pad", "injective", {"n", "c", "h", "w"});
    }
    IterVar rc = reduce_axis(C, "rc"), rr = reduce_axis(R, "rr"), rs = reduce_axis(S, "rs");
    Tensor O = compute({N, K, OH, OW},
                       [&](const std::vector<Var> &i) {
                         return sum(P(i[0], rc.var, Expr(i[2]) * Expr(st) + rr.var, Expr(i[3]) * Expr(st) + rs.var) *
                                        Wt(i[1], rc.var, rr.var, rs.var),
                                    {rc, rr, rs});
                       },
                       "conv", "conv2d", {"n", "k", "oh", "ow"});
    std::ostringstream nm;
    nm << "conv2d_" << N << "x" << C << "x" << H << "x" << W << "_k" << K << "x" << R << "x" << S << "_s" << st << "_p"
       << pad;
    *name = nm.str();
    return {O};
  }
  throw AttributeError("tune-op: unknown --op '" + op + "' (matmul, conv2d)");
}

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
    std::string op = "matmul", shape, policy = "evolutionary", db, plot, space, cost_model = "xgb";
    int trials = 64, threads = 2, batch = 16;
    bool resume = false, no_library = false, flush_cache = false;
    std::string remote_command, runner;
    uint64_t seed = 0;
    double timeout = 20;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--op", a->op, "matmul | conv2d")->required();
  cmd->add_option("--shape", a->shape, "matmul: M,N,K; conv2d: N,C,H,W,K,R,S,stride,pad")->required();
  cmd->add_option("--trials", a->trials, "total measured records wanted");
  cmd->add_option("--threads", a->threads, "kernel worker threads");
  cmd->add_option("--policy", a->policy, "evolutionary | annealing | random");
  cmd->add_option("--cost-model", a->cost_model, "xgb | random");
  cmd->add_option("--space", a->space, "search space (default: ansor when linked, else basic)");
  cmd->add_option("--batch", a->batch, "candidates per batch");
  cmd->add_option("--db", a->db, "tuning log (default $TETUNE_DB or tuning_logs/tetune.db)");
  cmd->add_flag("--resume", a->resume, "continue: stored records count towards --trials and train the model");
  cmd->add_option("--plot", a->plot, "write the tuning curve (best GFLOP/s vs trials) as SVG");
  cmd->add_option("--seed", a->seed, "random seed");
  cmd->add_option("--timeout", a->timeout, "seconds per candidate (compile + check + timing)");
  cmd->add_flag("--no-library", a->no_library, "skip the oneDNN comparison");
  cmd->add_flag("--flush-cache", a->flush_cache, "time each run with inputs and outputs flushed from the caches (as inside a model)");
  cmd->callback([a] {
    std::string name;
    auto dims = parse_shape(a->shape);
    auto outs = build_op(a->op, dims, &name);
    autotune::Task task = autotune::make_task(name, outs, Target{}, a->threads);
    autotune::TuneOptions o;
    o.trials = a->trials;
    o.batch_size = a->batch;
    o.policy = a->policy;
    o.cost_model = a->cost_model;
    o.space = a->space;
    o.db_path = a->db;
    o.resume = a->resume;
    o.seed = a->seed;
    o.op_name = a->op;
    o.measure.timeout_s = a->timeout;
    o.progress = [](const autotune::TuneProgress &p) {
      int w = 30, fill = p.trials_total ? w * p.trials_done / p.trials_total : w;
      std::fprintf(stderr, "\r[%s%s] %d/%d  best %.2f GFLOP/s  errors %d  elapsed %s  ETA %s   ",
                   std::string(fill, '#').c_str(), std::string(w - fill, '.').c_str(), p.trials_done, p.trials_total,
                   p.best_gflops, p.errors, fmt_time(p.elapsed_s).c_str(), fmt_time(p.eta_s).c_str());
      std::fflush(stderr);
    };
    std::fprintf(stderr, "tune-op %s: %.3f GFLOP per run, %d threads, policy %s, space %s\n", name.c_str(),
                 task.flops / 1e9, a->threads, a->policy.c_str(),
                 (a->space.empty() ? autotune::policy::default_space_name() : a->space).c_str());
    autotune::TuneResult r = autotune::tune(task, o);
    std::fprintf(stderr, "\n");
    std::printf("task: %s\nrecords: %d (measured now %d, errors %d) in %.1f s (search %.1f s, measure %.1f s)\n",
                name.c_str(), r.total_records, r.measured, r.errors, r.elapsed_s, r.search_s, r.measure_s);
    if (r.measured > 0) std::printf("throughput: %.2f candidates/s\n", r.measured / std::max(r.elapsed_s, 1e-9));
    if (!r.best) {
      std::printf("no successful candidate\n");
    } else {
      std::printf("best: %.3f ms, %.2f GFLOP/s (trial %d)\nschedule: %s\n", r.best->median_ms, r.best->gflops,
                  r.best->trial_index, r.best->schedule_json.c_str());
      if (a->op == "matmul" && !a->no_library) {
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
