// bazel run //bench:search: random search versus model-guided evolutionary
// search (XGB cost model) on the same tasks at equal trial budgets.
//
// The loop is tuner.cc's (autotune::tune) without the database: the policy
// proposes a batch, every candidate is measured in a forked child by
// autotune::Measurer (JIT + check + timing), the policy is notified and the
// cost model retrained from scratch on all records. Kept separate from tune()
// so that the time of each part (search, compile in the child, timing) can be
// reported per candidate.
//
// Output: a table per task and one JSON line per (task, policy) appended to
// bench/results/search.jsonl (--out PATH, --no-jsonl).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autotune/cost_model/cost_model.h"
#include "autotune/measure/measure.h"
#include "autotune/policy/policy.h"
#include "workload/task.h"
#include "base/errors.h"
#include "bench/json_line.h"
#include "te/ops/registry.h"

namespace {

using namespace tetune;
using namespace tetune::autotune;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Options {
  int trials = 64;
  int batch = 16;
  int threads = 2;
  uint64_t seed = 1;
  std::vector<std::string> only;  // task name substrings
  std::vector<std::string> policies = {"random", "evolutionary"};
  std::string out;
  bool no_jsonl = false;
  int repeat = 3;
  double min_repeat_ms = 10;
  int warmup = 0;
  double timeout_s = 8;
  bool runtime_checks = false;
};

const char *kUsage = R"(usage: search [options]
  --trials N         trial budget per (task, policy) (default 64)
  --batch N          candidates per batch (default 16)
  --threads T        kernel threads (default 2)
  --seed S           search seed (default 1)
  --only A,B         tasks whose name contains A or B (gemm512, conv3x3_c64_56)
  --policies A,B     policies (default random,evolutionary)
  --repeat R         timed repeats per candidate (default 3)
  --min-repeat-ms X  target length of one repeat (default 10)
  --warmup W         untimed runs before timing (default 0: the checked run warms up)
  --timeout S        per-candidate timeout (default 8)
  --runtime-checks   build candidates with Halide's runtime assertions (MeasureOptions::runtime_checks)
  --out PATH         JSONL output (default $BUILD_WORKSPACE_DIRECTORY/bench/results/search.jsonl)
  --no-jsonl         do not write JSON lines
)";

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) v.push_back(t);
  return v;
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw AttributeError("search: option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--trials") o.trials = std::stoi(next());
    else if (a == "--batch") o.batch = std::stoi(next());
    else if (a == "--threads") o.threads = std::stoi(next());
    else if (a == "--seed") o.seed = std::stoull(next());
    else if (a == "--only") o.only = split(next());
    else if (a == "--policies") o.policies = split(next());
    else if (a == "--repeat") o.repeat = std::stoi(next());
    else if (a == "--min-repeat-ms") o.min_repeat_ms = std::stod(next());
    else if (a == "--warmup") o.warmup = std::stoi(next());
    else if (a == "--timeout") o.timeout_s = std::stod(next());
    else if (a == "--out") o.out = next();
    else if (a == "--no-jsonl") o.no_jsonl = true;
    else if (a == "--runtime-checks") o.runtime_checks = true;
    else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      throw AttributeError("search: unknown option '" + a + "'\n" + kUsage);
    }
  }
  return o;
}

struct TaskDef {
  std::string name, op;
  std::vector<int64_t> shape;
};

struct Trial {
  bool ok = false;
  double gflops = 0, median_ms = 0, compile_s = 0, wall_s = 0;
  int error = 0;
};

struct RunResult {
  std::string task, policy;
  std::vector<Trial> trials;
  double elapsed_s = 0, search_s = 0, measure_s = 0, retrain_s = 0;
  double best_gflops = 0;
  int errors = 0;
  std::map<int, int> error_counts;
};

RunResult run_search(const Task &task, const std::string &policy_name, const Options &o) {
  RunResult res;
  res.task = task.name;
  res.policy = policy_name;
  auto space = policy::make_space(policy::default_space_name(), task);
  policy::PointCache cache(task, *space);
  const bool guided = policy_name != "random";
  const std::string model_name = "xgb";
  struct Holder : cost_model::CostModel {
    std::unique_ptr<cost_model::CostModel> inner;
    void update(const std::vector<std::vector<float>> &f, const std::vector<double> &t) override { inner->update(f, t); }
    std::vector<double> predict(const std::vector<std::vector<float>> &f) const override { return inner->predict(f); }
    void save(const std::string &p) const override { inner->save(p); }
    void load(const std::string &p) override { inner->load(p); }
    std::string name() const override { return inner->name(); }
    bool trained() const override { return inner->trained(); }
  } model;
  model.inner = policy::make_cost_model(model_name, o.seed);
  std::set<std::string> measured;
  policy::PolicyContext ctx;
  ctx.task = &task;
  ctx.space = space.get();
  ctx.cache = &cache;
  ctx.model = &model;
  ctx.measured = &measured;
  ctx.seed = o.seed;
  // epsilon, population, generations: PolicyContext's defaults, as in the tuner.
  auto pol = policy::make_policy(policy_name, ctx);

  MeasureOptions mo;
  mo.repeat = o.repeat;
  mo.min_repeat_ms = o.min_repeat_ms;
  mo.warmup = o.warmup;
  mo.timeout_s = o.timeout_s;
  mo.runtime_checks = o.runtime_checks;
  Measurer measurer(task, mo);
  measurer.reference();  // not counted: computed once per task before searching

  std::vector<std::vector<float>> train_x;
  std::vector<double> train_y;
  auto t0 = Clock::now();
  int done = 0, stalls = 0;
  while (done < o.trials) {
    int n = std::min(o.batch, o.trials - done);
    auto ts = Clock::now();
    std::vector<Candidate> batch = pol->next_batch(n);
    if (guided)
      for (const auto &p : batch) cache.with_features(p);
    else
      for (const auto &p : batch) cache.info(p);
    res.search_s += since(ts);
    if (batch.empty()) {
      if (++stalls >= 3) break;
      continue;
    }
    stalls = 0;
    // One measure_batch call per batch, as tune() does: builds overlap, timing stays serial.
    std::vector<const policy::PointInfo *> infos;
    std::vector<MeasureInput> ins;
    for (const auto &p : batch) {
      const policy::PointInfo &info = guided ? cache.with_features(p) : cache.info(p);
      infos.push_back(&info);
      if (info.valid || info.steps.empty()) ins.push_back(MeasureInput{info.steps, ""});
    }
    auto tm = Clock::now();
    std::vector<MeasureResult> measured_batch = measurer.measure_batch(ins);
    double per_trial_s = batch.empty() ? 0 : since(tm) / static_cast<double>(batch.size());
    std::vector<policy::Outcome> outs;
    size_t next = 0;
    for (size_t b = 0; b < batch.size(); b++) {
      const policy::PointInfo &info = *infos[b];
      MeasureResult m;
      if (!info.valid && !info.steps.empty()) {
        m.error = tuning_log::ErrorCode::kCompileError;
        m.error_msg = info.error;
      } else {
        m = measured_batch.at(next++);
      }
      Trial t;
      t.wall_s = per_trial_s;
      res.measure_s += t.wall_s;
      t.ok = m.ok();
      t.gflops = m.ok() ? m.gflops : 0;
      t.median_ms = m.ok() ? m.median_ms : 0;
      t.compile_s = m.compile_s;
      t.error = static_cast<int>(m.error);
      if (!m.ok()) res.errors++, res.error_counts[t.error]++;
      res.best_gflops = std::max(res.best_gflops, t.gflops);
      res.trials.push_back(t);
      measured.insert(info.steps_key);
      outs.push_back(policy::Outcome{batch[b], m.ok(), t.gflops});
      if (guided && info.has_features) {
        train_x.push_back(info.features);
        train_y.push_back(t.gflops);
      }
      done++;
    }
    std::fprintf(stderr, "  %-16s %-12s trial %3d/%d  best %7.1f GFLOP/s  %.0f s\n", task.name.c_str(),
                 policy_name.c_str(), done, o.trials, res.best_gflops, since(t0));
    pol->notify(outs);
    if (guided) {
      auto tr = Clock::now();
      auto fresh = policy::make_cost_model(model_name, o.seed);
      if (!train_x.empty()) fresh->update(train_x, train_y);
      model.inner = std::move(fresh);
      res.retrain_s += since(tr);
      res.search_s += since(tr);
    }
  }
  res.elapsed_s = since(t0);
  return res;
}

int trials_to_reach(const RunResult &r, double target) {
  double best = 0;
  for (size_t i = 0; i < r.trials.size(); i++) {
    best = std::max(best, r.trials[i].gflops);
    if (best >= target) return static_cast<int>(i) + 1;
  }
  return -1;
}

double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char b[64];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
  return b;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    Options o = parse(argc, argv);
    if (o.out.empty()) {
      const char *ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
      o.out = std::string(ws && *ws ? ws : ".") + "/bench/results/search.jsonl";
    }
    std::vector<TaskDef> defs = {
        {"gemm512", "matmul", {512, 512, 512}},
        {"conv3x3_c64_56", "conv2d", {1, 64, 56, 56, 64, 3, 3, 1, 1}},
    };
    const std::string run_id = now_iso();
    std::vector<std::string> lines;
    for (const auto &d : defs) {
      if (!o.only.empty() && std::none_of(o.only.begin(), o.only.end(),
                                          [&](const std::string &s) { return d.name.find(s) != std::string::npos; }))
        continue;
      ops::OpWorkload w = ops::build_op(d.op, d.shape);
      Task task = make_task(d.name, w.outputs, Target{}, o.threads);
      std::vector<RunResult> runs;
      for (const auto &p : o.policies) runs.push_back(run_search(task, p, o));
      double overall = 0;
      for (const auto &r : runs) overall = std::max(overall, r.best_gflops);
      const double target = 0.95 * overall;
      std::printf("\n%s (%s %s), %d threads, %d trials per policy; target = 95%% of the best found = %.1f GFLOP/s\n",
                  d.name.c_str(), d.op.c_str(), task.name.c_str(), o.threads, o.trials, target);
      std::printf("  %-13s %9s %10s %8s %9s %9s %9s %9s %9s %7s\n", "policy", "best GF/s", "trials@95%", "cand/s",
                  "meas/s", "compile", "meas/cand", "search", "elapsed", "errors");
      for (const auto &r : runs) {
        int reach = trials_to_reach(r, target);
        std::vector<double> comp, wall;
        for (const auto &t : r.trials) {
          if (t.compile_s > 0) comp.push_back(t.compile_s);
          wall.push_back(t.wall_s);
        }
        double n = static_cast<double>(r.trials.size());
        double cps = r.elapsed_s > 0 ? n / r.elapsed_s : 0;
        double mps = r.measure_s > 0 ? n / r.measure_s : 0;
        std::printf("  %-13s %9.1f %10s %8.2f %9.2f %8.0fms %8.0fms %8.1fs %8.1fs %4d/%d\n", r.policy.c_str(),
                    r.best_gflops, reach < 0 ? "never" : std::to_string(reach).c_str(), cps, mps,
                    1e3 * median(comp), 1e3 * median(wall), r.search_s, r.elapsed_s, r.errors,
                    static_cast<int>(r.trials.size()));
        nlohmann::ordered_json js;
        js["task"] = d.name;
        js["workload"] = task.name;
        js["policy"] = r.policy;
        js["cost_model"] = r.policy == "random" ? "none" : "xgb";
        js["threads"] = o.threads;
        js["trials"] = r.trials.size();
        js["best_gflops"] = bench::json_number(r.best_gflops);
        js["target_gflops"] = bench::json_number(target);
        js["trials_to_95pct"] = reach < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(reach);
        js["candidates_per_s"] = bench::json_number(cps);
        js["measured_per_s"] = bench::json_number(mps);
        js["median_compile_ms"] = bench::json_number(1e3 * median(comp));
        js["mean_compile_ms"] = bench::json_number(1e3 * mean(comp));
        js["median_measure_ms"] = bench::json_number(1e3 * median(wall));
        js["search_s"] = bench::json_number(r.search_s);
        js["retrain_s"] = bench::json_number(r.retrain_s);
        js["measure_s"] = bench::json_number(r.measure_s);
        js["elapsed_s"] = bench::json_number(r.elapsed_s);
        js["errors"] = r.errors;
        js["repeat"] = o.repeat;
        js["min_repeat_ms"] = bench::json_number(o.min_repeat_ms);
        js["warmup"] = o.warmup;
        js["runtime_checks"] = o.runtime_checks;
        js["seed"] = o.seed;
        nlohmann::ordered_json curve = nlohmann::ordered_json::array();
        double b = 0;
        for (const auto &t : r.trials) {
          b = std::max(b, t.gflops);
          curve.push_back(bench::json_number(std::round(b * 10) / 10));
        }
        js["curve"] = curve;
        js["run"] = run_id;
        lines.push_back(bench::json_line(js));
      }
      std::fflush(stdout);
    }
    if (!o.no_jsonl) {
      std::filesystem::create_directories(std::filesystem::path(o.out).parent_path());
      std::ofstream f(o.out, std::ios::app);
      for (const auto &l : lines) f << l << "\n";
      std::printf("\nappended %zu lines to %s\n", lines.size(), o.out.c_str());
    }
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "search: %s\n", e.what());
    return 2;
  }
}
