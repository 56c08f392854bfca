#include "autotune/mpi/mpi_measurer.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "autotune/mpi/mpi_messages.h"
#include "base/errors.h"
#include "schedule/trace.h"

namespace tetune {
namespace autotune {
namespace mpi {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kProbeTimeoutS = 120;  // a worker builds its tasks (a model's import) before it answers
constexpr double kAnswerSlackS = 10;    // beyond the candidate's own timeout: its fork, result pipe, MPI
constexpr size_t kPerWorker = 2;        // in flight per worker: one measured, one queued behind it

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Worker {
  int rank = 0;
  bool alive = true;
  std::string why_dropped;
  MPI_Request req = MPI_REQUEST_NULL;
  std::vector<char> buf;
  std::deque<long long> inflight;  // job ids, oldest first (ids of an abandoned batch included)
  Clock::time_point busy_since;    // when its oldest in-flight candidate started: sent, or the previous answer
  std::set<std::string> answered;  // workload keys it has measured (its reference exists)
  int group = -1;                  // the target group that holds it; -1: none yet (pass 0 probes it)
  // Sends not yet complete, with their text: MPI_Isend, as a blocking send to a dead rank never returns.
  std::deque<std::pair<MPI_Request, std::unique_ptr<std::string>>> sends;
};

// The worker ranks as rank 0 sees them, for the whole run. Passes in other
// threads share it: hold `mu` for every member and every MPI call.
class Pool {
 public:
  static Pool &get() {
    static Pool p;
    return p;
  }
  std::mutex mu;
  std::deque<Worker> workers;  // a deque: a Worker's pending sends are not copyable
  long long next_id = 1;
  std::vector<TargetGroup> groups;  // formed by the run's first probe; empty before
  std::function<void(const std::vector<TargetGroup> &)> on_groups;

  bool send(Worker &w, const nlohmann::json &j, int tag) {
    auto text = std::make_unique<std::string>(j.dump());
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Isend(text->data(), static_cast<int>(text->size()), MPI_CHAR, w.rank, tag, MPI_COMM_WORLD, &req) !=
        MPI_SUCCESS) {
      drop(w, "sending to it failed");
      return false;
    }
    w.sends.emplace_back(req, std::move(text));
    return true;
  }

  // Forgets the sends of w that have completed; true when none is left.
  bool sent(Worker &w) {
    while (!w.sends.empty()) {
      int flag = 0;
      if (MPI_Test(&w.sends.front().first, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        drop(w, "MPI reported an error sending to it (its process died?)");
        return false;
      }
      if (!flag) return false;
      w.sends.pop_front();
    }
    return true;
  }

  // A message of w, if one has arrived; drops w when MPI reports an error.
  bool poll(Worker &w, int *tag, nlohmann::json *msg) {
    if (!w.alive) return false;
    sent(w);
    if (!w.alive) return false;
    int flag = 0;
    MPI_Status st;
    if (MPI_Test(&w.req, &flag, &st) != MPI_SUCCESS) {
      w.req = MPI_REQUEST_NULL;
      drop(w, "MPI reported an error receiving from it (its process died?)");
      return false;
    }
    if (!flag) return false;
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    *tag = st.MPI_TAG;
    try {
      *msg = nlohmann::json::parse(std::string(w.buf.data(), static_cast<size_t>(n)));
    } catch (const nlohmann::json::exception &e) {
      drop(w, std::string("it sent a message that is not JSON: ") + e.what());
      return false;
    }
    post(w);
    return true;
  }

  void drop(Worker &w, const std::string &why) {
    if (!w.alive) return;
    w.alive = false;
    w.why_dropped = why;
    if (w.req != MPI_REQUEST_NULL) {
      MPI_Cancel(&w.req);
      MPI_Request_free(&w.req);
    }
    // MPI may still read the text of a send it has not completed: the texts are kept (a few KiB per dropped rank).
    for (auto &[req, text] : w.sends) {
      MPI_Cancel(&req);
      MPI_Request_free(&req);
      text.release();
    }
    w.sends.clear();
    std::fprintf(stderr, "tetune-mpi: MPI rank %d dropped: %s\n", w.rank, why.c_str());
  }

 private:
  Pool() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 1; r < size; r++) {
      Worker &w = workers.emplace_back();
      w.rank = r;
      w.buf.resize(kMaxMessageBytes);
      post(w);
    }
  }
  void post(Worker &w) {
    if (MPI_Irecv(w.buf.data(), kMaxMessageBytes, MPI_CHAR, w.rank, MPI_ANY_TAG, MPI_COMM_WORLD, &w.req) != MPI_SUCCESS) {
      w.req = MPI_REQUEST_NULL;
      drop(w, "MPI could not post a receive from it");
    }
  }
};

MeasureResult failed(tuning_log::ErrorCode code, const std::string &msg) {
  MeasureResult r;
  r.error = code;
  r.error_msg = msg;
  r.median_ms = std::numeric_limits<double>::infinity();
  return r;
}

class MpiMeasurer : public BatchMeasurer {
 public:
  MpiMeasurer(const Task &task, const MeasureOptions &options, int group)
      : task_(task), options_(options), group_(group) {
    if (!probe()) return;
    std::function<void(const std::vector<TargetGroup> &)> notify;
    std::vector<TargetGroup> groups;
    {
      Pool &pool = Pool::get();
      std::lock_guard<std::mutex> lk(pool.mu);
      notify = pool.on_groups;
      groups = pool.groups;
    }
    if (notify) notify(groups);  // unlocked: it may start passes that probe at once
  }

  const tuning_log::TargetInfo &target_info() const override { return target_; }

  std::vector<MeasureResult> measure_batch(const std::vector<MeasureInput> &ins) override {
    Pool &pool = Pool::get();
    std::vector<MeasureResult> out(ins.size());
    std::vector<std::string> schedule(ins.size());
    std::vector<std::vector<int>> lost_on(ins.size());  // ranks that died holding the candidate
    std::deque<size_t> queue;
    for (size_t i = 0; i < ins.size(); i++) {
      try {
        schedule[i] = trace_to_json(replay(task_.outputs, ins[i].steps));
        queue.push_back(i);
      } catch (const Error &e) {  // as Measurer: replayed before any child
        out[i] = failed(tuning_log::ErrorCode::kInvalidSchedule, e.what());
      }
    }
    std::unique_lock<std::mutex> lk(pool.mu);
    size_t remaining = queue.size();
    std::map<long long, size_t> job_of;  // this batch's ids in flight
    auto usable_alive = [&] {
      for (size_t k : usable_) if (pool.workers[k].alive) return true;
      return false;
    };
    // The candidates w held when it was dropped: sent elsewhere once, else failed naming the ranks.
    auto reclaim = [&](Worker &w) {
      for (long long id : w.inflight) {
        auto it = job_of.find(id);
        if (it == job_of.end()) continue;
        size_t i = it->second;
        job_of.erase(it);
        lost_on[i].push_back(w.rank);
        if (lost_on[i].size() < 2 && usable_alive()) {
          queue.push_front(i);
          continue;
        }
        std::string ranks;
        for (int r : lost_on[i]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
        out[i] = failed(tuning_log::ErrorCode::kUnknown, "lost by MPI rank " + ranks + " (" + w.why_dropped + ")");
        remaining--;
      }
      w.inflight.clear();
    };

    while (remaining > 0) {
      bool progressed = false;
      for (size_t k : usable_) {
        Worker &w = pool.workers[k];
        while (w.alive && w.inflight.size() < kPerWorker && !queue.empty()) {
          size_t i = queue.front();
          long long id = pool.next_id++;
          nlohmann::json m = {{"id", id}, {"key", task_.workload_key}, {"schedule", schedule[i]}, {"fault", ins[i].test_fault}};
          if (!pool.send(w, m, kMeasure)) break;
          queue.pop_front();
          if (w.inflight.empty()) w.busy_since = Clock::now();
          w.inflight.push_back(id);
          job_of[id] = i;
          progressed = true;
        }
      }
      for (size_t k : usable_) {
        Worker &w = pool.workers[k];
        int tag = 0;
        nlohmann::json msg;
        while (pool.poll(w, &tag, &msg)) {
          if (tag != kResult) continue;  // a late probe reply
          long long id = msg.value("id", 0LL);
          auto pos = std::find(w.inflight.begin(), w.inflight.end(), id);
          if (pos != w.inflight.end()) w.inflight.erase(pos);
          w.busy_since = Clock::now();
          w.answered.insert(task_.workload_key);
          auto it = job_of.find(id);
          if (it == job_of.end()) continue;  // of an abandoned batch
          size_t i = it->second;
          job_of.erase(it);
          try {
            out[i] = result_from_json(msg.at("result"));
            finalize_result(task_, out[i]);
          } catch (const std::exception &e) {
            out[i] = failed(tuning_log::ErrorCode::kUnknown, "MPI rank " + std::to_string(w.rank) + ": " + e.what());
          }
          remaining--;
          progressed = true;
        }
        if (w.alive && !w.inflight.empty()) {
          double limit = options_.timeout_s + kAnswerSlackS +
                         (w.answered.count(task_.workload_key) ? 0.0 : options_.reference_timeout_s);
          if (seconds(Clock::now() - w.busy_since) > limit)
            pool.drop(w, "no answer within " + std::to_string(static_cast<int>(limit)) + " s");
        }
        if (!w.alive && !w.inflight.empty()) {
          reclaim(w);
          progressed = true;
        }
      }
      if (remaining > 0 && !usable_alive()) throw MeasureError("no MPI worker rank left to measure " + task_.name + ": " + reasons());
      if (!progressed) {  // unlocked, so that the other passes poll meanwhile
        lk.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        lk.lock();
      }
    }
    return out;
  }

 private:
  Task task_;
  MeasureOptions options_;
  int group_;  // the pass: the target group whose workers it uses
  tuning_log::TargetInfo target_;
  std::vector<size_t> usable_;  // indices into Pool::workers that measure this task

  // Whether pass group_ probes w (see the header): its group's, and for pass 0 those of no other group.
  bool probes(const Worker &w) const { return w.alive && (group_ == 0 ? w.group <= 0 : w.group == group_); }

  // Why no worker is left (Pool::mu held).
  std::string reasons() const {
    std::string s;
    for (const auto &w : Pool::get().workers)
      if (!w.alive) s += (s.empty() ? "" : "; ") + ("rank " + std::to_string(w.rank) + ": " + w.why_dropped);
    return s.empty() ? "the run has no worker rank (mpirun -np 2 or more)" : s;
  }

  // Asks the pass's workers for their target for this task and picks those of
  // the most common one (see the header). Returns whether this probe formed the groups.
  bool probe() {
    Pool &pool = Pool::get();
    std::unique_lock<std::mutex> lk(pool.mu);
    if (group_ < 0 || (group_ > 0 && group_ >= static_cast<int>(pool.groups.size())))
      throw MeasureError("MPI measurer: no target group " + std::to_string(group_) + " (" +
                         std::to_string(pool.groups.size()) + " formed)");
    const long long id = pool.next_id++;
    std::map<size_t, nlohmann::json> replies;
    std::set<size_t> waiting;
    for (size_t k = 0; k < pool.workers.size(); k++)
      if (probes(pool.workers[k]) && pool.send(pool.workers[k], {{"probe", id}, {"key", task_.workload_key}}, kProbe))
        waiting.insert(k);
    const auto start = Clock::now();
    while (!waiting.empty()) {
      for (auto it = waiting.begin(); it != waiting.end();) {
        Worker &w = pool.workers[*it];
        int tag = 0;
        nlohmann::json msg;
        bool got = false;
        while (!got && pool.poll(w, &tag, &msg))
          if (tag == kProbeReply && msg.value("probe", 0LL) == id) got = true;
          else if (tag == kResult) {  // the answer to a candidate of an abandoned batch
            auto pos = std::find(w.inflight.begin(), w.inflight.end(), msg.value("id", 0LL));
            if (pos != w.inflight.end()) w.inflight.erase(pos);
          }
        if (got) replies[*it] = msg;
        if (got || !w.alive) {
          it = waiting.erase(it);
          continue;
        }
        if (seconds(Clock::now() - start) > kProbeTimeoutS)
          pool.drop(w, "no answer to the probe within " + std::to_string(static_cast<int>(kProbeTimeoutS)) + " s");
        ++it;
      }
      if (!waiting.empty()) {
        lk.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        lk.lock();
      }
    }
    // Targets by their workers (ascending), the most common first (ties: the lowest rank's).
    std::map<std::string, std::vector<size_t>> by_target;
    std::map<std::string, tuning_log::TargetInfo> targets;
    std::string refused;
    for (const auto &[k, msg] : replies) {
      if (msg.contains("error")) {
        refused += (refused.empty() ? "" : "; ") + msg.value("error", std::string());
        continue;
      }
      try {
        tuning_log::TargetInfo t = target_from_json(msg.at("target"));
        by_target[t.key()].push_back(k);
        targets[t.key()] = t;
      } catch (const std::exception &e) {
        pool.drop(pool.workers[k], std::string("bad probe reply: ") + e.what());
      }
    }
    std::vector<std::string> order;
    for (const auto &[key, ks] : by_target) order.push_back(key);
    std::sort(order.begin(), order.end(), [&](const std::string &a, const std::string &b) {
      const auto &ka = by_target[a], &kb = by_target[b];
      return ka.size() != kb.size() ? ka.size() > kb.size() : ka[0] < kb[0];
    });
    if (order.empty())
      throw MeasureError("no MPI worker rank can measure " + task_.name + ": " +
                         (refused.empty() ? reasons() : refused));
    if (!refused.empty()) std::fprintf(stderr, "tetune-mpi: %s: %s\n", task_.name.c_str(), refused.c_str());
    const std::string &chosen = order[0];
    usable_ = by_target[chosen];
    target_ = targets[chosen];
    if (pool.groups.empty()) {  // the run's first probe: one group per target, each tuned by its own pass
      for (size_t g = 0; g < order.size(); g++) {
        TargetGroup group{targets[order[g]], {}};
        for (size_t k : by_target[order[g]]) {
          pool.workers[k].group = static_cast<int>(g);
          group.ranks.push_back(pool.workers[k].rank);
        }
        pool.groups.push_back(group);
      }
      if (order.size() > 1) {
        std::fprintf(stderr, "tetune-mpi: the worker ranks measure for %zu targets; each tunes every task into its own records:\n",
                     order.size());
        for (size_t g = 0; g < pool.groups.size(); g++) {
          std::string ranks;
          for (int r : pool.groups[g].ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
          std::fprintf(stderr, "tetune-mpi:   target %zu, MPI rank(s) %s: %s\n", g + 1, ranks.c_str(),
                       pool.groups[g].target.key().c_str());
        }
      }
      return true;
    }
    for (size_t g = 1; g < order.size(); g++)
      for (size_t k : by_target[order[g]])
        std::fprintf(stderr, "tetune-mpi: %s: MPI rank %d left out: its target %s differs from %s\n",
                     task_.name.c_str(), pool.workers[k].rank, order[g].c_str(), chosen.c_str());
    return false;
  }
};

}  // namespace

std::unique_ptr<BatchMeasurer> make_mpi_measurer(const Task &task, const MeasureOptions &options, int group) {
  return std::make_unique<MpiMeasurer>(task, options, group);
}

void set_on_target_groups(std::function<void(const std::vector<TargetGroup> &groups)> fn) {
  Pool &pool = Pool::get();
  std::lock_guard<std::mutex> lk(pool.mu);
  pool.on_groups = std::move(fn);
}

std::vector<int> stop_workers() {
  Pool &pool = Pool::get();
  std::lock_guard<std::mutex> lk(pool.mu);
  std::vector<int> dropped;
  bool all_alive = true;
  for (const auto &w : pool.workers) all_alive = all_alive && w.alive;
  // A dropped rank that is slow, not dead, leaves its loop when it reaches this (never waited for: it may be dead).
  static const std::string kStopText = nlohmann::json{{"finalize", false}}.dump();
  for (auto &w : pool.workers) {
    if (w.alive) {
      pool.send(w, {{"finalize", all_alive}}, kStop);
      continue;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Isend(kStopText.data(), static_cast<int>(kStopText.size()), MPI_CHAR, w.rank, kStop, MPI_COMM_WORLD, &req) ==
        MPI_SUCCESS)
      MPI_Request_free(&req);
  }
  // A live worker takes its kStop at once (it waits in MPI_Probe); one that does not within the limit is hung.
  const auto start = Clock::now();
  for (auto &w : pool.workers)
    while (w.alive && !pool.sent(w)) {
      if (seconds(Clock::now() - start) > kAnswerSlackS) pool.drop(w, "it did not take the stop message");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  for (auto &w : pool.workers) {
    if (!w.alive) {
      dropped.push_back(w.rank);
      continue;
    }
    if (w.req != MPI_REQUEST_NULL) {
      MPI_Cancel(&w.req);
      MPI_Request_free(&w.req);
    }
    w.alive = false;
  }
  return dropped;
}

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
