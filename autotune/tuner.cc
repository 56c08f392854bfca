#include "autotune/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "autotune/features/features.h"
#include "autotune/measure/measure_hooks.h"
#include "autotune/policy/policy.h"
#include "autotune/transfer.h"
#include "schedule/trace.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A stable CostModel handle whose implementation is replaced on each retrain.
class SwappableModel : public cost_model::CostModel {
 public:
  std::unique_ptr<cost_model::CostModel> inner;
  void update(const std::vector<std::vector<float>> &f, const std::vector<double> &t) override { inner->update(f, t); }
  std::vector<double> predict(const std::vector<std::vector<float>> &f) const override { return inner->predict(f); }
  void save(const std::string &p) const override { inner->save(p); }
  void load(const std::string &p) override { inner->load(p); }
  std::string name() const override { return inner->name(); }
  bool trained() const override { return inner->trained(); }
};

// Donors for a task with few records (TuneOptions::transfer): collects them, fills res's transfer fields and
// writes the summary and the skipped donor records to stderr (at most `kShown` of those; all are in res).
Transfer warm_start(const Task &task, const TuneOptions &opt, const RecordStore &db, TuneResult *res) {
  std::set<std::string> own;  // schedules this run knows as measured: not seeds
  if (opt.resume)
    for (const auto &r : db.records()) {
      try {
        own.insert(policy::steps_key(trace_from_json(r.schedule_json, task.outputs)));
      } catch (const Error &) {
        // A record this build cannot read: the resume counts it without using it.
      }
    }
  TransferOptions to;
  to.max_seeds = std::max(1, opt.batch_size / 2);  // the other half: analytical seeds and the policy's picks
  to.seeds_per_group = std::max(1, to.max_seeds / 2);
  Transfer t = collect_transfer(task, db, to, own);
  res->transferred = static_cast<int>(t.seeds.size());
  res->transfer_summary = t.summary();
  res->transfer_skipped = t.skipped;
  const char *name = task.name.c_str();
  if (!res->transfer_summary.empty())
    std::fprintf(stderr, "tune %s: transfer: %s\n", name, res->transfer_summary.c_str());
  const size_t kShown = 8;
  for (size_t i = 0; i < t.skipped.size() && i < kShown; i++)
    std::fprintf(stderr, "tune %s: transfer: skipped %s\n", name, t.skipped[i].c_str());
  if (t.skipped.size() > kShown)
    std::fprintf(stderr, "tune %s: transfer: %zu more lines of skipped donor records (TuneResult::transfer_skipped)\n",
                 name, t.skipped.size() - kShown);
  return t;
}

}  // namespace

std::string space_name(const Task &task, const TuneOptions &opt) {
  return !opt.space.empty() ? opt.space : task.target.is_gpu() ? "gpu" : policy::default_space_name();
}

TuneResult tune(const Task &task, const TuneOptions &opt) {
  if (opt.trials < 0) throw Error("tune: trials must be >= 0");
  if (opt.batch_size <= 0) throw Error("tune: batch_size must be > 0");
  auto t0 = Clock::now();
  TuneResult res;

  std::string desc = workload_description(task);
  if (measure_hooks().before_tuning) measure_hooks().before_tuning({task}, opt.measure);
  std::unique_ptr<RemoteMeasurer> remote;
  // A GPU kernel is timed with CUDA events by the runner (on this machine
  // unless opt.remote says otherwise); the in-process measurer would time
  // host-device copies with it.
  if (opt.remote || task.target.is_gpu())
    remote = std::make_unique<RemoteMeasurer>(task, opt.measure, opt.remote.value_or(RemoteOptions{}));
  // A driver's measurer (autotune/measure/measure_hooks.h), e.g. MPI ranks, for a CPU task.
  std::unique_ptr<BatchMeasurer> hooked;
  if (!remote && measure_hooks().make_measurer) hooked = measure_hooks().make_measurer(task, opt.measure);
  const std::string op_name = opt.op_name.empty() ? task.name : opt.op_name;
  RecordStore db = remote   ? RecordStore(opt.db_path, task.workload_key, op_name, desc, remote->target_info(), opt.read_dbs)
                   : hooked ? RecordStore(opt.db_path, task.workload_key, op_name, desc, hooked->target_info(), opt.read_dbs)
                            : RecordStore(opt.db_path, task.workload_key, op_name, desc, std::max(1, task.threads),
                                          opt.read_dbs);
  res.target_key = db.target_key();
  std::unique_ptr<policy::Space> space = policy::make_space(space_name(task, opt), task);
  Transfer transfer;
  if (opt.transfer && db.count() < opt.batch_size) {
    auto tl = Clock::now();
    transfer = warm_start(task, opt, db, &res);
    if (!transfer.seeds.empty()) space = transfer_space(std::move(space), transfer.seeds);
    res.search_s += since(tl);
  }
  policy::PointCache cache(task, *space);
  auto model = std::make_unique<SwappableModel>();
  model->inner = policy::make_cost_model(opt.cost_model, opt.seed);
  std::set<std::string> measured;
  policy::PolicyContext ctx;
  ctx.task = &task;
  ctx.space = space.get();
  ctx.cache = &cache;
  ctx.model = model.get();
  ctx.measured = &measured;
  ctx.seed = opt.seed;
  ctx.epsilon = opt.epsilon;
  ctx.population = opt.population;
  ctx.generations = opt.generations;
  auto pol = policy::make_policy(opt.policy, ctx);

  // Training data: features and throughputs of every record (failed = 0).
  std::vector<std::vector<float>> train_x;
  std::vector<double> train_y;
  double best = 0;
  int done = 0;
  // The curve of single records; res.best is the log's choice, taken at the end.
  auto consider_best = [&](const tuning_log::MeasureRecord &r) {
    if (r.ok()) best = std::max(best, r.gflops);
    res.curve.push_back(best);
  };

  if (opt.resume) {
    auto old = db.records();
    std::vector<policy::Outcome> outs;
    auto tl = Clock::now();
    for (const auto &r : old) {
      consider_best(r);
      done++;
      try {
        auto steps = trace_from_json(r.schedule_json, task.outputs);
        measured.insert(policy::steps_key(steps));
        Schedule s = replay(task.outputs, steps);
        train_x.push_back(features::schedule_features(s, task));
        train_y.push_back(r.ok() && std::isfinite(r.gflops) ? std::max(0.0, r.gflops) : 0.0);
        if (auto p = space->from_steps(steps)) outs.push_back(policy::Outcome{*p, r.ok(), r.ok() ? r.gflops : 0.0});
      } catch (const Error &) {
        // A record this build cannot replay: still counted, not used for training.
      }
    }
    res.search_s += since(tl);
    if (!outs.empty()) pol->notify(outs);
  }
  // The model starts from the task's stored records and the donors' (one training group each).
  if (!train_x.empty() || !transfer.train_features.empty()) {
    auto tl = Clock::now();
    train_with_donors(*model->inner, transfer, train_x, train_y);
    res.search_s += since(tl);
  }

  Measurer measurer(task, opt.measure, opt.references);
  auto measure_batch = [&](const std::vector<MeasureInput> &ins) {
    return remote ? remote->measure_batch(ins) : hooked ? hooked->measure_batch(ins) : measurer.measure_batch(ins);
  };
  // The last trials of the budget re-measure the top schedules (see TuneOptions::confirm_top).
  const int round_trials = std::max(0, opt.confirm_top * opt.confirm_repeats);
  const int rounds = round_trials > 0 ? std::min(std::max(0, opt.confirm_rounds), opt.trials / 4 / round_trials) : 0;
  const int reserve = rounds * round_trials;
  const int search_trials = opt.trials - reserve;
  auto report = [&](const tuning_log::MeasureRecord &rec) {
    if (!opt.progress) return;
    TuneProgress pr;
    pr.trials_done = done;
    pr.trials_total = opt.trials;
    pr.measured_now = res.measured;
    pr.errors = res.errors;
    pr.best_gflops = best;
    pr.elapsed_s = since(t0);
    int left = opt.trials - done;
    pr.eta_s = res.measured ? pr.elapsed_s / res.measured * left : 0;
    pr.last = &rec;
    opt.progress(pr);
  };
  // Stores one measurement as the next trial's record (committed before the next one is measured).
  auto commit = [&](const std::string &schedule_json, const MeasureResult &m) {
    tuning_log::MeasureRecord rec = measure_record(schedule_json, m, opt.tuner_version, done);
    rec.id = db.add(rec);
    done++;
    res.measured++;
    if (!m.ok()) res.errors++;
    return rec;
  };
  int stalls = 0;
  while (done < search_trials) {
    int n = std::min(opt.batch_size, search_trials - done);
    auto tl = Clock::now();
    std::vector<Candidate> batch = pol->next_batch(n);
    for (const auto &p : batch) cache.with_features(p);
    res.search_s += since(tl);
    if (batch.empty()) {
      if (++stalls >= 3) {  // the space is exhausted
        res.space_exhausted = true;
        break;
      }
      continue;
    }
    stalls = 0;
    std::vector<policy::Outcome> outs;
    // Measure the whole batch at once (children compile in parallel, time one at a time).
    std::vector<MeasureResult> results(batch.size());
    {
      auto tm = Clock::now();
      std::vector<MeasureInput> ins;
      std::vector<size_t> where;
      for (size_t b = 0; b < batch.size(); b++) {
        const policy::PointInfo &info = cache.with_features(batch[b]);
        if (!info.valid && !info.steps.empty()) {
          // Lowering already failed in this process: no need to fork.
          results[b].error = tuning_log::ErrorCode::kCompileError;
          results[b].error_msg = info.error;
          results[b].median_ms = std::numeric_limits<double>::infinity();
          continue;
        }
        MeasureInput in;
        in.steps = info.steps;
        if (opt.test_fault) in.test_fault = opt.test_fault(done + static_cast<int>(b));
        ins.push_back(std::move(in));
        where.push_back(b);
      }
      std::vector<MeasureResult> got = measure_batch(ins);
      for (size_t k = 0; k < got.size(); k++) results[where[k]] = std::move(got[k]);
      res.measure_s += since(tm);
    }
    for (size_t b = 0; b < batch.size(); b++) {
      const Candidate &p = batch[b];
      const policy::PointInfo &info = cache.with_features(p);
      const MeasureResult &m = results[b];
      std::string json;
      try {
        json = trace_to_json(replay(task.outputs, info.steps));
      } catch (const Error &) {
        json = "{\"version\": 1, \"steps\": []}";
      }
      tuning_log::MeasureRecord rec = commit(json, m);
      measured.insert(info.steps_key);
      consider_best(rec);
      // A donor schedule is no point of the policy's space (transfer_space): it informs the model only.
      if (is_transferred(p)) res.transferred_measured++;
      else outs.push_back(policy::Outcome{p, m.ok(), rec.gflops});
      if (info.has_features) {
        train_x.push_back(info.features);
        train_y.push_back(rec.gflops);
      }
      report(rec);
    }
    pol->notify(outs);
    // Retrain from scratch on all records as one group (pairs across batches), after the donors' groups.
    auto tr = Clock::now();
    auto fresh = policy::make_cost_model(opt.cost_model, opt.seed);
    train_with_donors(*fresh, transfer, train_x, train_y);
    model->inner = std::move(fresh);
    res.search_s += since(tr);
  }
  // Confirmation rounds (see TuneOptions::confirm_top): round-robin, so that
  // a noisy period of the machine touches all of a round's schedules alike.
  const int wanted = 1 + opt.confirm_repeats;
  for (int round = 0; round < rounds && done < opt.trials; round++) {
    std::map<std::string, int> times;  // records per schedule, failed ones included
    for (const auto &r : db.records()) times[r.schedule_json]++;
    std::vector<tuning_log::MeasureRecord> pending;
    for (auto &r : db.best(static_cast<int>(times.size())))
      if (times[r.schedule_json] < wanted && static_cast<int>(pending.size()) < opt.confirm_top) pending.push_back(r);
    if (pending.empty()) break;
    std::vector<MeasureInput> ins;
    std::vector<const tuning_log::MeasureRecord *> of;
    for (int rep = 1; rep < wanted; rep++)
      for (const auto &p : pending) {
        if (times[p.schedule_json] + rep > wanted) continue;  // it has enough already
        if (done + static_cast<int>(ins.size()) >= opt.trials) break;
        MeasureInput in;
        in.steps = trace_from_json(p.schedule_json, task.outputs);
        ins.push_back(std::move(in));
        of.push_back(&p);
      }
    auto tm = Clock::now();
    std::vector<MeasureResult> got = measure_batch(ins);
    res.measure_s += since(tm);
    for (size_t k = 0; k < got.size(); k++) {
      tuning_log::MeasureRecord rec = commit(of[k]->schedule_json, got[k]);
      res.confirmed++;
      consider_best(rec);
      report(rec);
    }
  }
  // The best schedule as the log ranks it (a re-measured schedule costs its middle measurement).
  std::vector<tuning_log::MeasureRecord> b = db.best(1);
  res.best = b.empty() ? std::nullopt : std::optional<tuning_log::MeasureRecord>(b[0]);
  res.best_gflops = res.best ? res.best->gflops : 0;
  if (res.best)
    for (const auto &r : db.records())
      if (r.ok() && r.schedule_json == res.best->schedule_json) res.best_measurements++;
  res.total_records = static_cast<int>(db.count());
  res.elapsed_s = since(t0);
  return res;
}

}  // namespace autotune
}  // namespace tetune
