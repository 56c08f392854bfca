#include "autotune/task_scheduler.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "base/errors.h"

namespace tetune {
namespace autotune {

TaskScheduler::TaskScheduler(std::vector<SchedTaskInfo> tasks, SchedulerOptions options)
    : tasks_(std::move(tasks)), state_(tasks_.size()), opt_(options), rng_(options.seed * 7919 + 17) {
  if (opt_.batch <= 0) throw Error("task scheduler: batch must be > 0");
  if (opt_.backward_window <= 0) throw Error("task scheduler: backward_window must be > 0");
  for (size_t i = 0; i < tasks_.size(); i++)
    if (tasks_[i].max_trials == 0) state_[i].dead = true;
}

void TaskScheduler::set_initial(int i, int trials, double best_ms) {
  auto &s = state_.at(i);
  s.trials = trials;
  s.best_ms = best_ms;
  s.rounds = trials > 0 ? std::max(1, (trials + opt_.batch - 1) / opt_.batch) : 0;
  s.history.assign(s.rounds, best_ms);
  s.warmed = trials >= warm_target(i);
}

int TaskScheduler::warm_target(int i) const {
  int w = opt_.warmup_trials > 0 ? opt_.warmup_trials : opt_.batch;
  return tasks_[i].max_trials >= 0 ? std::min(w, tasks_[i].max_trials) : w;
}

bool TaskScheduler::heavy(int i) const {
  const double g = state_[i].best_ms;
  return opt_.heavy_share > 0 && tasks_[i].max_trials > 0 && std::isfinite(g) &&
         tasks_[i].weight * g >= opt_.heavy_share * objective();
}

int TaskScheduler::cap_left(int i) const {
  if (tasks_[i].max_trials < 0 || heavy(i)) return INT_MAX;
  return std::max(0, tasks_[i].max_trials - state_[i].trials);
}

int TaskScheduler::trials_used() const {
  int n = 0;
  for (const auto &s : state_) n += s.trials;
  return n;
}

int TaskScheduler::remaining() const {
  if (opt_.total_trials <= 0) return INT_MAX;
  return std::max(0, opt_.total_trials - trials_used());
}

namespace {

// The sum of a task's rivals' best latencies (inf when one has none).
double rivals_ms(const SchedTaskInfo &t, const std::vector<double> &best_ms) {
  double sum = 0;
  for (int r : t.rivals) sum += best_ms.at(r);
  return sum;
}

}  // namespace

double objective(const std::vector<SchedTaskInfo> &tasks, const std::vector<double> &best_ms) {
  double f = 0;
  for (size_t i = 0; i < tasks.size(); i++) {
    const double g = best_ms.at(i);
    if (!std::isfinite(g)) continue;
    if (tasks[i].rivals.empty()) f += tasks[i].weight * g;
    else if (const double r = rivals_ms(tasks[i], best_ms); std::isfinite(r)) f -= tasks[i].weight * std::max(0.0, r - g);
  }
  return f;
}

std::vector<double> TaskScheduler::best_ms() const {
  std::vector<double> best;
  for (const auto &s : state_) best.push_back(s.best_ms);
  return best;
}

double TaskScheduler::objective() const { return autotune::objective(tasks_, best_ms()); }

int TaskScheduler::tasks_without_result() const {
  int n = 0;
  for (size_t i = 0; i < tasks_.size(); i++) n += tasks_[i].rivals.empty() && !std::isfinite(state_[i].best_ms);
  return n;
}

double TaskScheduler::gradient(int i) const {
  const auto &s = state_.at(i);
  const auto &t = tasks_.at(i);
  if (!std::isfinite(s.best_ms)) return -std::numeric_limits<double>::infinity();
  double g = s.best_ms;
  // f counts a task with rivals as min(g, R) - R (objective()): only what falls below their sum R lowers f.
  const double rivals = t.rivals.empty() ? std::numeric_limits<double>::infinity() : rivals_ms(t, best_ms());
  auto in_f = [rivals](double latency) { return std::min(latency, rivals); };
  // Backward window: latency change per round over the last dt rounds.
  double backward = 0;
  int dt = opt_.backward_window;
  if (static_cast<int>(s.history.size()) > dt) {
    double a = s.history.back(), b = s.history[s.history.size() - 1 - dt];
    if (std::isfinite(a) && std::isfinite(b)) backward = (in_f(a) - in_f(b)) / dt;
  }
  // Forward (optimistic): 1/t decay, or 1/beta of the best throughput of similar tasks.
  double rounds = std::max(1.0, static_cast<double>(s.trials) / opt_.batch);
  double next1 = g - g / rounds;
  double next2 = std::numeric_limits<double>::infinity();
  if (!t.similarity_key.empty() && t.flops > 0) {
    double best_v = 0;  // flops per ms
    bool other = false;
    for (size_t k = 0; k < tasks_.size(); k++) {
      if (tasks_[k].similarity_key != t.similarity_key || !std::isfinite(state_[k].best_ms) || state_[k].best_ms <= 0)
        continue;
      if (static_cast<int>(k) != i) other = true;
      best_v = std::max(best_v, tasks_[k].flops / state_[k].best_ms);
    }
    if (other && best_v > 0) next2 = opt_.beta * t.flops / best_v;
  }
  double forward = in_f(std::min(next1, next2)) - in_f(g);
  return t.weight * (opt_.alpha * backward + (1 - opt_.alpha) * forward);
}

TaskScheduler::Pick TaskScheduler::next() {
  Pick p;
  int left = remaining();
  if (left <= 0) return p;
  auto make = [&](int i, bool warm) {
    p.task = i;
    p.warmup = warm;
    // Warm-up tops a task up to one batch of records (a stored baseline counts); later steps add a batch.
    int want = warm ? std::max(1, warm_target(i) - state_[i].trials) : opt_.batch;
    int n = std::min({want, left, cap_left(i)});
    p.trials_target = state_[i].trials + n;
    return p;
  };
  // Warm-up: one batch per task, in order.
  for (int i = 0; i < size(); i++)
    if (!state_[i].dead && !state_[i].warmed && cap_left(i) > 0) return make(i, true);
  std::vector<int> live;
  for (int i = 0; i < size(); i++)
    if (!state_[i].dead && cap_left(i) > 0) live.push_back(i);
  if (live.empty()) return p;
  if (opt_.epsilon > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < opt_.epsilon)
    return make(live[std::uniform_int_distribution<size_t>(0, live.size() - 1)(rng_)], false);
  int best = live[0];
  double bg = gradient(best);
  for (int i : live) {
    double gi = gradient(i);
    if (gi < bg) best = i, bg = gi;
  }
  return make(best, false);
}

void TaskScheduler::report(int i, int trials_now, double best_ms) {
  auto &s = state_.at(i);
  bool progressed = trials_now > s.trials;
  s.trials = std::max(s.trials, trials_now);
  if (best_ms < s.best_ms) s.best_ms = best_ms;
  s.rounds++;
  s.history.push_back(s.best_ms);
  s.warmed = true;
  if (!progressed) s.dead = true;
}

int run_task_scheduler(TaskScheduler &s, const SchedStepFn &step, const std::function<bool()> &should_stop) {
  int steps = 0;
  for (;;) {
    if (should_stop && should_stop()) break;
    auto p = s.next();
    if (p.task < 0) break;
    int now = s.state(p.task).trials;
    double best = s.state(p.task).best_ms;
    bool go_on = step(p.task, p.trials_target, p.warmup, &now, &best);
    s.report(p.task, now, best);
    steps++;
    if (!go_on) break;
  }
  return steps;
}

}  // namespace autotune
}  // namespace tetune
