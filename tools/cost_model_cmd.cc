// tetune cost-model export|train: the offline cost model's dataset and training.
//
//   tetune cost-model export (--model M.onnx [--input-shape x=1,3,48,320] | --op matmul --shape 64,48,40)
//       --db LOG.db [--threads N] --out DATA.jsonl
//   tetune cost-model train --data A.jsonl [--data B.jsonl ...] --out MODEL.json
//       [--holdout-cpu NAME] [--holdout-split N] [--rounds 80] [--xgb-threads 1]
//
// export: for each task of the model (the tasks `tetune tune` extracts; --threads
// as given to tune) or of the one operator (as `tetune tune-op` builds it), every
// successful record of its workload in the log, on any CPU target, is replayed
// on the task and written with its schedule's features as one JSON line
// (autotune/cost_model/dataset.h gives the format). The features are computed
// with the record's target threads, as the tuner computed them when it
// measured. Records whose trace does not replay, failed records, GPU records
// and the log's workloads that are no task of the model are counted on stderr.
//
// train: one query group per (workload, target), throughput = 1 / median_ms,
// one XGBCostModel::update per group (groups of one record carry no pair and
// are left out; a record exported twice, e.g. by two models sharing a task, is
// kept once), saved to --out with its ".rows" sidecar and a provenance file
// --out + ".train.json". --holdout-cpu keeps the records of CPUs whose model
// name contains NAME out of training, --holdout-split N the workloads
// held_out_workload(key, N) selects; the held-out groups are then ranked by the
// model and by a random ranking, side by side (ranking_quality in dataset.h).
// The saved model is the one trained without the held-out records.
// tools/train_cost_model.sh makes the shipped model with these commands.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "autotune/cost_model/dataset.h"
#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/features/features.h"
#include "base/errors.h"
#include "model_tuning/model_tuning.h"
#include "relay_import/onnx_importer.h"
#include "schedule/trace.h"
#include "te/ops/registry.h"
#include "tools/cli_options.h"
#include "tools/commands.h"
#include "workload/op_task.h"
#include "tuning_logs/database.h"

namespace tetune {
namespace cli {
namespace {

struct ExportArgs {
  std::string model, op, shape, db, out;
  std::vector<std::string> shapes;
  int threads = 0;  // set by add_threads_option
};

std::vector<Task> export_tasks(const ExportArgs &a) {
  std::vector<Task> tasks;
  if (!a.model.empty()) {
    std::map<std::string, Shape> shapes;
    for (const auto &s : a.shapes)
      for (auto &kv : relay::parse_input_shapes(s)) shapes[kv.first] = kv.second;
    for (auto &mt : autotune::extract_model_tasks(a.model, shapes, a.threads)) tasks.push_back(std::move(mt.task));
    return tasks;
  }
  tasks.push_back(op_task(a.op, ops::parse_int_list(a.shape), Target{}, a.threads));  // as tune-op builds it
  return tasks;
}

void export_dataset(const ExportArgs &a) {
  if (a.model.empty() == a.op.empty()) throw UsageError("cost-model export: give either --model or --op with --shape");
  if (!a.op.empty() && a.shape.empty()) throw UsageError("cost-model export: --op needs --shape");
  tuning_log::TuningLog log = tuning_log::TuningLog::open_read_only(a.db);
  std::vector<Task> tasks = export_tasks(a);

  std::map<std::string, std::vector<std::string>> targets_of;  // workload -> targets with records
  for (const auto &w : log.list_workloads())
    if (!w.target_key.empty()) targets_of[w.workload_key].push_back(w.target_key);

  std::ofstream out(a.out);
  if (!out) throw Error("cost-model export: cannot write '" + a.out + "'");
  std::map<std::string, std::string> source{{"db", a.db}, {"threads", std::to_string(a.threads)}};
  if (!a.model.empty()) {
    source["model"] = a.model;
    std::string shapes;
    for (const auto &s : a.shapes) shapes += (shapes.empty() ? "" : " ") + s;
    source["input_shapes"] = shapes;
  } else {
    source["op"] = a.op;
    source["shape"] = a.shape;
  }
  out << cost_model::dataset_header_line(autotune::features::feature_names(), source) << "\n";

  int written = 0, failed = 0, not_replayed = 0, gpu = 0, tasks_with = 0;
  std::string first_error;
  std::set<std::string> task_keys;
  std::map<std::string, int> per_cpu;
  for (const Task &task : tasks) {
    if (!task_keys.insert(task.workload_key).second) continue;
    auto it = targets_of.find(task.workload_key);
    if (it == targets_of.end()) continue;
    int before = written;
    for (const auto &tk : it->second) {
      std::optional<tuning_log::TargetInfo> target = log.target(tk);
      std::vector<tuning_log::MeasureRecord> records = log.records(task.workload_key, tk);
      if (!target || target->kind != "llvm") {  // CPU features would describe a GPU kernel wrongly
        gpu += static_cast<int>(records.size());
        continue;
      }
      Task t = task;
      t.threads = std::max(1, target->threads);
      for (const auto &r : records) {
        if (!r.ok() || !(r.median_ms > 0) || !std::isfinite(r.median_ms)) {
          failed++;
          continue;
        }
        cost_model::DatasetRecord d;
        try {
          Schedule s = replay(t.outputs, trace_from_json(r.schedule_json, t.outputs));
          d.features = autotune::features::schedule_features(s, t);
        } catch (const Error &e) {
          if (first_error.empty()) first_error = task.name + ": " + e.what();
          not_replayed++;
          continue;
        }
        d.workload_key = task.workload_key;
        d.task = task.name;
        d.target_key = tk;
        d.cpu_model = target->cpu_model;
        d.threads = t.threads;
        d.median_ms = r.median_ms;
        d.gflops = r.gflops;
        out << cost_model::dataset_record_line(d) << "\n";
        written++;
        per_cpu[target->cpu_model + ", " + std::to_string(t.threads) + " threads"]++;
      }
    }
    tasks_with += written > before;
  }
  out.close();
  if (!out) throw Error("cost-model export: writing '" + a.out + "' failed");
  int foreign = 0;
  for (const auto &kv : targets_of) foreign += !task_keys.count(kv.first);
  std::printf("export: %d records of %d of %zu tasks -> %s\n", written, tasks_with, task_keys.size(), a.out.c_str());
  for (const auto &kv : per_cpu) std::printf("  %6d on %s\n", kv.second, kv.first.c_str());
  if (not_replayed)
    std::printf("note: %d records skipped: their trace does not replay on the task (first: %s)\n", not_replayed,
                first_error.c_str());
  if (failed) std::printf("note: %d failed records (error code set) not exported\n", failed);
  if (gpu) std::printf("note: %d records of GPU targets not exported (CPU features only)\n", gpu);
  if (foreign)
    std::printf("note: %d workloads of the log are no task of this model here (other models, input shapes or "
                "fusion)\n", foreign);
  if (written == 0)
    std::printf("note: no record exported: check --input-shape and --threads against the tuning run "
                "(`tetune log list --db %s`)\n", a.db.c_str());
}

struct TrainArgs {
  std::vector<std::string> data;
  std::string out, holdout_cpu;
  int holdout_split = 0, rounds = cost_model::XGBCostModelOptions().num_rounds, xgb_threads = 1;
};

std::string fmt_quality(const cost_model::RankingQuality &q) {
  char b[200];
  std::snprintf(b, sizeof b, "pairwise accuracy %.3f (pooled %.3f)  kendall tau %.3f  top-1 %.3f of the best",
                q.pairwise_accuracy, q.pooled_accuracy, q.kendall_tau, q.top1_ratio);
  return b;
}

void train(const TrainArgs &a) {
  const std::vector<std::string> &names = autotune::features::feature_names();
  std::vector<cost_model::DatasetRecord> train_recs, held_recs;
  std::set<std::tuple<std::string, std::string, double, std::vector<float>>> seen;
  int duplicates = 0;
  std::set<std::string> cpus;
  for (const auto &path : a.data) {
    cost_model::Dataset d = cost_model::read_dataset(path);
    if (d.feature_names != names)
      throw Error("cost-model train: " + path + " has " + std::to_string(d.feature_names.size()) +
                  " features other than this build's " + std::to_string(names.size()) +
                  " (autotune/features/features.h): export it again");
    for (auto &r : d.records) {
      if (!seen.insert({r.workload_key, r.target_key, r.median_ms, r.features}).second) {
        duplicates++;
        continue;
      }
      cpus.insert(r.cpu_model);
      bool held = (!a.holdout_cpu.empty() && r.cpu_model.find(a.holdout_cpu) != std::string::npos) ||
                  cost_model::held_out_workload(r.workload_key, a.holdout_split);
      (held ? held_recs : train_recs).push_back(std::move(r));
    }
  }
  std::string cpu_list;
  for (const auto &c : cpus) cpu_list += (cpu_list.empty() ? "" : "; ") + c;
  if (!a.holdout_cpu.empty()) {
    bool any = std::any_of(cpus.begin(), cpus.end(), [&](const std::string &c) { return c.find(a.holdout_cpu) != std::string::npos; });
    if (!any) throw UsageError("cost-model train: --holdout-cpu '" + a.holdout_cpu + "' matches none of: " + cpu_list);
  }
  std::vector<cost_model::QueryGroup> groups = cost_model::query_groups(train_recs), train_groups;
  int singles = 0;
  for (auto &g : groups) {
    if (g.throughputs.size() < 2) singles++;
    else train_groups.push_back(std::move(g));
  }
  if (train_groups.empty()) throw Error("cost-model train: no group of two or more training records (CPUs: " + cpu_list + ")");

  cost_model::XGBCostModelOptions o;
  o.num_rounds = a.rounds;
  o.nthread = a.xgb_threads;
  cost_model::XGBCostModel model(o);
  auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, int> per_cpu;
  std::vector<cost_model::XGBCostModel::Group> batch;
  for (const auto &g : train_groups) {
    per_cpu[g.cpu_model] += static_cast<int>(g.throughputs.size());
    batch.push_back({g.features, g.throughputs});
  }
  model.update_groups(batch);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  model.save(a.out);

  std::printf("train: %zu records in %zu groups (workload x target) in %.1f s, %d rounds -> %s\n",
              model.num_records(), model.num_groups(), secs, a.rounds, a.out.c_str());
  for (const auto &kv : per_cpu) std::printf("  %6d records of %s\n", kv.second, kv.first.c_str());
  if (duplicates) std::printf("note: %d duplicate records (exported twice) kept once\n", duplicates);
  if (singles) std::printf("note: %d groups of a single record left out (no pair to rank)\n", singles);
  cost_model::RankingQuality fit = cost_model::ranking_quality(model, train_groups);
  std::printf("training groups: %s (%d groups)\n", fmt_quality(fit).c_str(), fit.groups);

  nlohmann::json prov;
  prov["data"] = a.data;
  prov["holdout_cpu"] = a.holdout_cpu;
  prov["holdout_split"] = a.holdout_split;
  prov["rounds"] = a.rounds;
  prov["records"] = model.num_records();
  prov["groups"] = model.num_groups();
  prov["train_seconds"] = secs;
  if (!held_recs.empty()) {
    std::vector<cost_model::QueryGroup> held = cost_model::query_groups(held_recs);
    cost_model::RankingQuality q = cost_model::ranking_quality(model, held);
    cost_model::RankingQuality r = cost_model::random_ranking_quality(held);
    std::printf("held out (%s%s%s): %zu records, %d groups with an order\n",
                a.holdout_cpu.empty() ? "" : ("cpu ~ '" + a.holdout_cpu + "'").c_str(),
                !a.holdout_cpu.empty() && a.holdout_split ? ", " : "",
                a.holdout_split ? ("workloads 1/" + std::to_string(a.holdout_split)).c_str() : "", held_recs.size(),
                q.groups);
    std::printf("  model : %s\n", fmt_quality(q).c_str());
    std::printf("  random: %s (expected)\n", fmt_quality(r).c_str());
    std::map<std::string, std::vector<cost_model::QueryGroup>> by_cpu;
    for (auto &g : held) by_cpu[g.cpu_model].push_back(g);
    if (by_cpu.size() > 1)
      for (const auto &[cpu, gs] : by_cpu) {
        cost_model::RankingQuality qc = cost_model::ranking_quality(model, gs), rc = cost_model::random_ranking_quality(gs);
        std::printf("  %s, %d groups: model %s; random top-1 %.3f\n", cpu.c_str(), qc.groups, fmt_quality(qc).c_str(),
                    rc.top1_ratio);
      }
    prov["held_out"] = {{"records", held_recs.size()},
                        {"groups", q.groups},
                        {"pairwise_accuracy", q.pairwise_accuracy},
                        {"pooled_accuracy", q.pooled_accuracy},
                        {"kendall_tau", q.kendall_tau},
                        {"top1_ratio", q.top1_ratio},
                        {"random_pairwise_accuracy", r.pairwise_accuracy},
                        {"random_top1_ratio", r.top1_ratio}};
  } else if (!a.holdout_cpu.empty() || a.holdout_split) {
    std::printf("note: the hold-out selected no record: no held-out ranking quality\n");
  }
  std::ofstream p(a.out + ".train.json");
  p << prov.dump(1) << "\n";
  if (!p) throw Error("cost-model train: cannot write '" + a.out + ".train.json'");
}

}  // namespace

void add_cost_model_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("cost-model", "dataset export and offline training of the shipped cost model");
  cmd->require_subcommand(1);

  auto ea = std::make_shared<ExportArgs>();
  auto *e = cmd->add_subcommand("export", "write the features and measured times of a log's records as JSON lines");
  e->add_option("--model", ea->model, "ONNX model whose tasks are exported (as `tetune tune` extracts them)");
  e->add_option("--input-shape", ea->shapes, "NAME=D1,D2,... for each dynamic input (repeatable)");
  e->add_option("--op", ea->op, "one operator instead of a model (as `tetune tune-op` builds it)");
  e->add_option("--shape", ea->shape, "the operator's shape (see `tetune ops`)");
  add_db_option(e, ea->db, "tuning log to read (opened read-only)")->required();
  e->add_option("--out", ea->out, "JSON-lines dataset to write")->required();
  add_threads_option(e, ea->threads, "threads of the task extraction (as given to `tetune tune`)");
  e->callback([ea] { export_dataset(*ea); });

  auto ta = std::make_shared<TrainArgs>();
  auto *t = cmd->add_subcommand("train", "train an XGBoost ranking model on exported datasets");
  t->add_option("--data", ta->data, "dataset written by `cost-model export` (repeatable)")->required();
  t->add_option("--out", ta->out, "model file to write (XGBoost JSON; sidecars .rows and .train.json)")->required();
  t->add_option("--holdout-cpu", ta->holdout_cpu, "train without the records of CPUs whose name contains NAME; rank them");
  t->add_option("--holdout-split", ta->holdout_split, "train without about 1 in N workloads (by key hash); rank them")
      ->check(CLI::NonNegativeNumber);
  t->add_option("--rounds", ta->rounds, "boosting rounds")->check(CLI::PositiveNumber);
  t->add_option("--xgb-threads", ta->xgb_threads, "XGBoost threads")->check(CLI::PositiveNumber);
  t->callback([ta] { train(*ta); });
}

}  // namespace cli
}  // namespace tetune
