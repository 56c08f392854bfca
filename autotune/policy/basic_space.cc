#include "autotune/policy/basic_space.h"

#include <algorithm>
#include <numeric>

#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace policy {

namespace {

class BasicSpace : public Space {
 public:
  explicit BasicSpace(const Task &task) : task_(task) {
    Schedule s(task.outputs);
    const StageInfo *main = nullptr;
    for (const auto &st : s.stages()) {
      if (st.is_output) main = &st;
      else if (!st.is_reduction()) inline_.push_back(st.name);
    }
    if (!main) throw Error("basic space: task '" + task.name + "' has no output stage");
    stage_ = main->name;
    reduction_ = main->is_reduction();
    for (size_t i = 0; i < main->spatial_axes.size(); i++) {
      spatial_.push_back(main->spatial_axes[i]);
      choices_["t" + std::to_string(i)] = divisors_up_to(main->shape[i], 128);
    }
    for (size_t j = 0; j < main->reduce_axes.size(); j++) {
      reduce_.push_back(main->reduce_axes[j].var.name());
      choices_["k" + std::to_string(j)] = divisors_up_to(main->reduce_axes[j].extent, 64);
    }
    choices_["v"] = {1, 4, 8, 16};
    std::vector<int64_t> ps;
    for (int64_t p = 0; p <= static_cast<int64_t>(spatial_.size()); p++) ps.push_back(p);
    choices_["p"] = ps;
    choices_["u"] = {0, 1};
  }

  std::string name() const override { return "basic"; }

  Candidate sample(std::mt19937_64 &rng) const override {
    Candidate p;
    p.sketch = reduction_ ? static_cast<int>(rng() % 2) : 1;
    for (const auto &kv : choices_) p.params[kv.first] = kv.second[rng() % kv.second.size()];
    return p;
  }

  Candidate mutate(const Candidate &in, std::mt19937_64 &rng) const override {
    Candidate p = in;
    int changes = 1 + static_cast<int>(rng() % 2);
    for (int c = 0; c < changes; c++) {
      if (reduction_ && rng() % 10 == 0) {
        p.sketch = 1 - p.sketch;
        continue;
      }
      auto it = choices_.begin();
      std::advance(it, rng() % choices_.size());
      const auto &ch = it->second;
      // Mostly a neighbouring choice (x2 / /2), sometimes any.
      auto pos = std::find(ch.begin(), ch.end(), p.params[it->first]) - ch.begin();
      if (rng() % 3 != 0 && pos < static_cast<long>(ch.size())) {
        long np = pos + ((rng() % 2) ? 1 : -1);
        np = std::max(0L, std::min(static_cast<long>(ch.size()) - 1, np));
        p.params[it->first] = ch[np];
      } else {
        p.params[it->first] = ch[rng() % ch.size()];
      }
    }
    return p;
  }

  Candidate crossover(const Candidate &a, const Candidate &b, std::mt19937_64 &rng) const override {
    if (a.sketch != b.sketch) return a;
    Candidate p = a;
    for (auto &kv : p.params)
      if (rng() % 2) {
        auto it = b.params.find(kv.first);
        if (it != b.params.end()) kv.second = it->second;
      }
    return p;
  }

  std::vector<Step> steps(const Candidate &pt) const override {
    auto get = [&](const std::string &k) {
      auto it = pt.params.find(k);
      if (it == pt.params.end()) throw ScheduleError("basic space: point lacks parameter '" + k + "'");
      return it->second;
    };
    Schedule s(task_.outputs);
    for (const auto &st : inline_) {
      try {
        s.compute_inline(st);
      } catch (const ScheduleError &) {
      }
    }
    const std::string S = stage_;
    bool cw = reduction_ && pt.sketch == 0;
    std::string L = cw ? s.cache_write(S) : S;
    size_t n = spatial_.size();
    std::vector<std::string> outer, inner;
    for (size_t i = 0; i < n; i++) {
      auto [o, in] = s.split(S, spatial_[i], get("t" + std::to_string(i)));
      outer.push_back(o);
      inner.push_back(in);
    }
    int64_t tlast = n ? get("t" + std::to_string(n - 1)) : 1;
    int64_t v = std::gcd(get("v"), tlast);
    std::vector<std::string> kouter, kinner;
    for (size_t j = 0; j < reduce_.size(); j++) {
      auto [o, in] = s.split(L, reduce_[j], get("k" + std::to_string(j)));
      kouter.push_back(o);
      kinner.push_back(in);
    }
    std::vector<std::string> order = outer;
    if (!cw) order.insert(order.end(), kouter.begin(), kouter.end());
    for (size_t i = 0; i + 1 < n; i++) order.push_back(inner[i]);
    if (!cw) order.insert(order.end(), kinner.begin(), kinner.end());
    std::string last = n ? inner[n - 1] : "";
    if (n) order.push_back(last);
    s.reorder(S, order);
    std::string vec_axis;
    if (n && v > 1 && v < tlast) {
      auto [o, in] = s.split(S, last, v);
      vec_axis = in;
      (void)o;
    } else if (n && v > 1) {
      vec_axis = last;
    }
    int64_t p = get("p");
    std::string attach = n ? outer.back() : "";
    if (p > 0 && n) {
      std::string f = outer[0];
      for (int64_t i = 1; i < p && i < static_cast<int64_t>(n); i++) f = s.fuse(S, f, outer[i]);
      s.parallel(S, f);
      if (p >= static_cast<int64_t>(n)) attach = f;
    }
    if (!vec_axis.empty()) s.vectorize(S, vec_axis);
    if (!cw && get("u") && !kinner.empty() && get("k" + std::to_string(reduce_.size() - 1)) <= 16)
      s.unroll(S, kinner.back());
    if (cw) {
      s.compute_at(L, S, attach);
      // Local stage: axes are the root names (spatial_, reduce_).
      std::vector<std::string> lorder = kouter;
      for (size_t i = 0; i + 1 < n; i++) lorder.push_back(spatial_[i]);
      lorder.insert(lorder.end(), kinner.begin(), kinner.end());
      std::string lv;
      if (n) {
        if (v > 1) {
          auto [o, in] = s.split(L, spatial_[n - 1], v);
          lorder.push_back(o);
          lorder.push_back(in);
          lv = in;
        } else {
          lorder.push_back(spatial_[n - 1]);
        }
      }
      s.reorder(L, lorder);
      if (!lv.empty()) s.vectorize(L, lv);
      if (get("u") && !kinner.empty() && get("k" + std::to_string(reduce_.size() - 1)) <= 16) s.unroll(L, kinner.back());
    }
    return s.trace();
  }

 private:
  Task task_;
  std::string stage_;
  bool reduction_ = false;
  std::vector<std::string> inline_, spatial_, reduce_;
  std::map<std::string, std::vector<int64_t>> choices_;
};

bool registered = register_space("basic", [](const Task &t) { return make_basic_space(t); });

}  // namespace

std::unique_ptr<Space> make_basic_space(const Task &task) {
  (void)registered;
  return std::make_unique<BasicSpace>(task);
}

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
