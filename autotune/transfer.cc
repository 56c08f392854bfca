#include "autotune/transfer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/features/features.h"
#include "base/errors.h"
#include "schedule/trace.h"
#include "tuning_logs/database.h"

namespace tetune {
namespace autotune {

namespace {

constexpr int kTransferSketch = -1;  // Candidate::sketch of a transferred point; its index is params["transfer"]
constexpr double kInf = std::numeric_limits<double>::infinity();

// The name and flops of a description ({"name": ..., "flops": ...}); name "" / flops 0 when absent or unreadable.
struct Described {
  std::string name;
  double flops = 0;
  std::vector<double> dims;  // the name's trailing "_AxBxC", empty when it has none
};

Described described(const std::string &json) {
  Described d;
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return d;
  if (j.contains("name") && j["name"].is_string()) d.name = j["name"].get<std::string>();
  if (j.contains("flops") && j["flops"].is_number()) d.flops = j["flops"].get<double>();
  size_t us = d.name.rfind('_');
  if (us == std::string::npos) return d;
  std::string tail = d.name.substr(us + 1);
  std::vector<double> dims;
  std::string num;
  for (size_t i = 0; i <= tail.size(); i++) {
    if (i < tail.size() && tail[i] >= '0' && tail[i] <= '9') {
      num += tail[i];
    } else if (!num.empty() && (i == tail.size() || tail[i] == 'x')) {
      dims.push_back(std::stod(num));
      num.clear();
    } else {
      return d;  // not a dims suffix
    }
  }
  d.dims = dims;
  return d;
}

// The divisor of e nearest f on a log scale (ties: the smaller).
int64_t nearest_divisor(int64_t e, int64_t f) {
  int64_t best = 1;
  double best_d = kInf;
  for (int64_t d = 1; d <= e; d++) {
    if (e % d) continue;
    double dist = std::fabs(std::log(static_cast<double>(d) / static_cast<double>(f)));
    if (dist < best_d - 1e-12) best = d, best_d = dist;
  }
  return best;
}

// One line of an error message (ScheduleError texts may span lines).
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string file_name(const std::string &path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

std::string DonorGroup::describe() const {
  std::ostringstream os;
  os << (workload_name.empty() ? "workload" : workload_name) << " (" << workload_key.substr(0, 8) << ") on '"
     << target.cpu_model << "'";
  if (!target.device.empty()) os << " '" << target.device << "'";
  os << ", " << target.threads << " thread" << (target.threads == 1 ? "" : "s") << ", in " << file_name(log_path);
  return os.str();
}

std::string Transfer::summary() const {
  if (groups.empty()) return "";
  auto plural = [](size_t n, const char *what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  std::map<int, int> per_group;
  int adapted = 0;
  for (const auto &s : seeds) {
    per_group[s.group]++;
    adapted += s.adapted_factors > 0;
  }
  size_t rows = 0;
  for (const auto &g : train_features) rows += g.size();
  std::ostringstream os;
  os << plural(seeds.size(), "schedule");
  if (adapted) os << " (" << adapted << " adapted to this shape)";
  os << " from " << plural(groups.size(), "donor group") << ":";
  for (size_t g = 0; g < groups.size(); g++)
    os << (g ? ";" : "") << " " << (per_group.count(static_cast<int>(g)) ? per_group[static_cast<int>(g)] : 0)
       << " of " << groups[g].describe();
  os << "; the cost model starts from " << plural(rows, "donor record");
  if (skipped_records) os << "; " << plural(static_cast<size_t>(skipped_records), "donor record") << " skipped";
  return os.str();
}

std::string operator_of(const std::string &op_name) {
  // A model task is named "g<group index>_<ops>" (model_tuning.h).
  if (op_name.size() > 2 && op_name[0] == 'g' && std::isdigit(static_cast<unsigned char>(op_name[1]))) {
    size_t i = 1;
    while (i < op_name.size() && std::isdigit(static_cast<unsigned char>(op_name[i]))) i++;
    if (i < op_name.size() && op_name[i] == '_' && i + 1 < op_name.size()) return op_name.substr(i + 1);
  }
  return op_name;
}

double shape_distance(const std::string &description_a, const std::string &description_b) {
  Described a = described(description_a), b = described(description_b);
  if (!a.dims.empty() && a.dims.size() == b.dims.size()) {
    double sum = 0;
    bool ok = true;
    for (size_t i = 0; i < a.dims.size(); i++) {
      if (a.dims[i] <= 0 || b.dims[i] <= 0) ok = false;
      else sum += std::fabs(std::log2(a.dims[i] / b.dims[i]));
    }
    if (ok) return sum / static_cast<double>(a.dims.size());
  }
  if (a.flops > 0 && b.flops > 0) return std::fabs(std::log2(a.flops / b.flops));
  return kInf;
}

Schedule replay_adapted(const std::vector<Tensor> &outputs, const std::vector<Step> &steps, bool adapt, int *adapted) {
  Schedule s(outputs);
  int changed = 0;
  // The extent of a leaf axis of a stage, 0 when either is unknown (apply() then names the fault).
  auto leaf_extent = [&s](const std::string &stage, const std::string &axis) -> int64_t {
    if (!s.has_stage(stage)) return 0;
    const StageInfo &st = s.stage(stage);
    int i = st.leaf_index(axis);
    return i < 0 ? 0 : st.leaves[i].extent;
  };
  for (size_t k = 0; k < steps.size(); k++) {
    Step step = steps[k];
    if (adapt) {
      int64_t *factor = nullptr, extent = 0;
      if (auto *sp = std::get_if<SplitStep>(&step)) factor = &sp->factor, extent = leaf_extent(sp->stage, sp->axis);
      // pack_layout comes before other steps on its stage, so its root axis is still a leaf.
      if (auto *pk = std::get_if<PackLayoutStep>(&step)) factor = &pk->factor, extent = leaf_extent(pk->stage, pk->axis);
      if (factor && *factor > 0 && extent > 0 && extent % *factor != 0) {
        *factor = nearest_divisor(extent, *factor);
        changed++;
      }
    }
    try {
      s.apply(step);
    } catch (const ScheduleError &e) {
      throw ScheduleError("step " + std::to_string(k) + " " + to_string(step) + ": " + one_line(e.what()));
    }
  }
  if (adapted) *adapted = changed;
  return s;
}

std::vector<DonorGroup> find_donor_groups(const RecordStore &store, const TransferOptions &o) {
  const tuning_log::WorkloadInfo &own = store.workload();
  const std::string op = operator_of(own.op_name);
  std::vector<DonorGroup> same, other;
  const auto logs = store.logs();
  for (size_t li = 0; li < logs.size(); li++) {
    const tuning_log::TuningLog &log = *logs[li];
    std::map<std::string, DonorGroup> nearest;  // another shape's workload key -> its group on the nearest target
    std::map<std::string, std::optional<tuning_log::WorkloadInfo>> rows;
    for (const auto &w : log.list_workloads()) {
      if (w.target_key.empty() || w.num_valid == 0) continue;
      const bool same_workload = w.workload_key == own.key;
      if (same_workload && w.target_key == store.target_key()) continue;  // the task's own records
      if (!same_workload && (op.empty() || operator_of(w.op_name) != op)) continue;
      std::optional<tuning_log::TargetInfo> t = log.target(w.target_key);
      if (!t || !tuning_log::is_compatible(store.target(), *t)) continue;  // e.g. a GPU's records for a CPU task
      DonorGroup g;
      g.same_workload = same_workload;
      g.log_index = static_cast<int>(li);
      g.log_path = log.path();
      g.workload_key = w.workload_key;
      g.target = *t;
      g.target_distance = tuning_log::compatibility_distance(store.target(), *t);
      auto row = rows.find(w.workload_key);
      if (row == rows.end()) row = rows.emplace(w.workload_key, log.workload(w.workload_key)).first;
      g.workload_name = row->second ? described(row->second->description_json).name : "";
      if (same_workload) {
        same.push_back(std::move(g));
        continue;
      }
      g.shape_distance = row->second ? shape_distance(own.description_json, row->second->description_json) : kInf;
      auto it = nearest.find(g.workload_key);
      if (it == nearest.end()) nearest.emplace(g.workload_key, std::move(g));
      else if (g.target_distance < it->second.target_distance) it->second = std::move(g);
    }
    for (auto &kv : nearest) other.push_back(std::move(kv.second));
  }
  std::stable_sort(same.begin(), same.end(),
                   [](const DonorGroup &a, const DonorGroup &b) { return a.target_distance < b.target_distance; });
  std::stable_sort(other.begin(), other.end(), [](const DonorGroup &a, const DonorGroup &b) {
    return std::tie(a.shape_distance, a.target_distance) < std::tie(b.shape_distance, b.target_distance);
  });
  std::vector<DonorGroup> out;
  for (auto &g : same)
    if (static_cast<int>(out.size()) < o.max_groups) out.push_back(std::move(g));
  for (int k = 0; k < static_cast<int>(other.size()) && k < o.max_other_shapes; k++)
    if (static_cast<int>(out.size()) < o.max_groups) out.push_back(std::move(other[k]));
  return out;
}

Transfer collect_transfer(const Task &task, const RecordStore &store, const TransferOptions &o,
                          const std::set<std::string> &exclude) {
  Transfer tr;
  tr.groups = find_donor_groups(store, o);
  tr.train_features.resize(tr.groups.size());
  tr.train_gflops.resize(tr.groups.size());
  const auto logs = store.logs();
  std::set<std::string> taken = exclude;
  for (size_t gi = 0; gi < tr.groups.size(); gi++) {
    const DonorGroup &g = tr.groups[gi];
    int seeded = 0;
    std::vector<std::pair<std::string, std::vector<int64_t>>> failed;  // reason -> record ids, first seen first
    for (const auto &rec : logs[g.log_index]->best(g.workload_key, g.target.key(), o.train_per_group)) {
      try {
        int adapted = 0;
        Schedule s = replay_adapted(task.outputs, trace_from_json(rec.schedule_json, task.outputs), !g.same_workload,
                                    &adapted);
        std::vector<float> f = features::schedule_features(s, task);
        tr.train_features[gi].push_back(std::move(f));
        tr.train_gflops[gi].push_back(std::isfinite(rec.gflops) ? std::max(0.0, rec.gflops) : 0.0);
        if (seeded >= o.seeds_per_group || static_cast<int>(tr.seeds.size()) >= o.max_seeds) continue;
        std::vector<Step> steps = s.trace();
        if (!taken.insert(policy::steps_key(steps)).second) continue;  // measured, or another donor's
        TransferredSchedule t;
        t.record_id = rec.id;
        t.group = static_cast<int>(gi);
        t.steps = std::move(steps);
        t.schedule = std::make_shared<const Schedule>(std::move(s));
        t.adapted_factors = adapted;
        t.gflops = rec.gflops;
        tr.seeds.push_back(std::move(t));
        seeded++;
      } catch (const Error &e) {
        const std::string why = one_line(e.what());
        auto it = std::find_if(failed.begin(), failed.end(), [&](const auto &f) { return f.first == why; });
        if (it == failed.end()) it = failed.insert(failed.end(), {why, {}});
        it->second.push_back(rec.id);
        tr.skipped_records++;
      }
    }
    for (const auto &[why, ids] : failed) {
      std::string line = ids.size() == 1 ? "record " : "records ";
      for (size_t k = 0; k < ids.size(); k++) line += (k ? ", " : "") + std::to_string(ids[k]);
      tr.skipped.push_back(line + " of " + g.describe() + ": " + why);
    }
  }
  return tr;
}

namespace {

// A Space whose seeds include donor schedules (transfer_space).
class TransferSpace : public policy::Space {
 public:
  TransferSpace(std::unique_ptr<policy::Space> inner, std::vector<TransferredSchedule> seeds)
      : inner_(std::move(inner)), seeds_(std::move(seeds)) {}

  std::string name() const override { return inner_->name(); }
  Candidate sample(std::mt19937_64 &rng) const override { return inner_->sample(rng); }
  Candidate mutate(const Candidate &p, std::mt19937_64 &rng) const override {
    return is_transferred(p) ? inner_->sample(rng) : inner_->mutate(p, rng);
  }
  Candidate crossover(const Candidate &a, const Candidate &b, std::mt19937_64 &rng) const override {
    if (is_transferred(a)) return inner_->sample(rng);
    if (is_transferred(b)) return a;  // as a crossover of two sketches: a copy of a
    return inner_->crossover(a, b, rng);
  }
  std::vector<Step> steps(const Candidate &p) const override {
    return is_transferred(p) ? seed(p).steps : inner_->steps(p);
  }
  std::shared_ptr<const Schedule> schedule(const Candidate &p) const override {
    return is_transferred(p) ? seed(p).schedule : inner_->schedule(p);
  }
  std::string family(const Candidate &p) const override { return is_transferred(p) ? "transfer" : inner_->family(p); }
  std::vector<Candidate> seeds() const override {
    std::vector<Candidate> inner = inner_->seeds(), out;
    if (!inner.empty()) out.push_back(inner[0]);
    for (size_t i = 0; i < seeds_.size(); i++) {
      Candidate c;
      c.sketch = kTransferSketch;
      c.params["transfer"] = static_cast<int64_t>(i);
      out.push_back(std::move(c));
    }
    for (size_t i = 1; i < inner.size(); i++) out.push_back(inner[i]);
    return out;
  }
  std::optional<Candidate> from_steps(const std::vector<Step> &steps) const override {
    return inner_->from_steps(steps);
  }

 private:
  const TransferredSchedule &seed(const Candidate &p) const {
    int64_t i = p.params.at("transfer");
    if (i < 0 || i >= static_cast<int64_t>(seeds_.size()))
      throw Error("transfer space: no transferred schedule " + std::to_string(i) + " (" +
                  std::to_string(seeds_.size()) + " transferred)");
    return seeds_[static_cast<size_t>(i)];
  }

  std::unique_ptr<policy::Space> inner_;
  std::vector<TransferredSchedule> seeds_;
};

}  // namespace

std::unique_ptr<policy::Space> transfer_space(std::unique_ptr<policy::Space> inner,
                                              std::vector<TransferredSchedule> seeds) {
  if (!inner) throw Error("transfer_space: no inner space");
  return std::make_unique<TransferSpace>(std::move(inner), std::move(seeds));
}

bool is_transferred(const Candidate &p) { return p.sketch == kTransferSketch && p.params.count("transfer"); }

void train_with_donors(cost_model::CostModel &model, const Transfer &transfer,
                       const std::vector<std::vector<float>> &own_x, const std::vector<double> &own_gflops) {
  std::vector<cost_model::XGBCostModel::Group> groups;
  for (size_t g = 0; g < transfer.train_features.size(); g++)
    if (!transfer.train_features[g].empty()) groups.push_back({transfer.train_features[g], transfer.train_gflops[g]});
  if (!own_x.empty()) groups.push_back({own_x, own_gflops});
  if (auto *xgb = dynamic_cast<cost_model::XGBCostModel *>(&model)) {
    xgb->update_groups(groups);
    return;
  }
  for (const auto &g : groups) model.update(g.features, g.throughputs);
}

}  // namespace autotune
}  // namespace tetune
