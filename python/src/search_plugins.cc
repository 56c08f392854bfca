// Python search policies and cost models inside the C++ tuner.
//
// A Python policy subclasses SearchPolicy and a Python cost model CostModel:
// pybind11 trampolines (PySearchPolicy, PyCostModel) send the tuner's virtual
// calls to the Python methods, taking the GIL for each (tune() runs with it
// released). A factory registered under a name is called by the C++
// registries (policy::make_policy / make_cost_model) inside tune(); what they
// hand the tuner (OwnedPolicy, OwnedModel) holds a reference to the Python
// instance, so the instance lives as long as the tuner uses it, and the
// SearchContext given to a policy is closed when the run ends (its pointers
// into the tuner die with it).
#include "python/src/search_plugins.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "autotune/features/features.h"
#include "autotune/policy/policy.h"
#include "base/errors.h"
#include "schedule/trace.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

using autotune::Candidate;
using autotune::policy::Outcome;
using autotune::policy::PolicyContext;
using autotune::policy::SearchPolicy;
using cost_model::CostModel;
using Rows = std::vector<std::vector<float>>;

// ---- NumPy <-> feature matrices ----------------------------------------------

py::array_t<float> feature_matrix(const Rows &rows) {
  const size_t width = rows.empty() ? 0 : rows[0].size();
  py::array_t<float> a({rows.size(), width});
  float *out = a.mutable_data();
  for (const auto &r : rows) out = std::copy(r.begin(), r.end(), out);
  return a;
}

Rows rows_from(py::handle x, const std::string &who) {
  auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(x);
  if (!a || a.ndim() != 2)
    throw ShapeError(who + ": expected a 2-D array of features (one row per candidate), got " +
                     py::repr(x).cast<std::string>().substr(0, 80));
  Rows rows(static_cast<size_t>(a.shape(0)));
  for (py::ssize_t i = 0; i < a.shape(0); i++) rows[i].assign(a.data(i, 0), a.data(i, 0) + a.shape(1));
  return rows;
}

std::vector<double> doubles_from(py::handle x, size_t want, const std::string &who) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(x);
  if (!a || a.ndim() != 1 || static_cast<size_t>(a.size()) != want)
    throw ShapeError(who + ": expected " + std::to_string(want) + " numbers in a 1-D array, got " +
                     (a ? "shape (" + std::to_string(a.ndim() ? a.shape(0) : 0) + (a.ndim() > 1 ? ", ...)" : ")")
                        : py::repr(x).cast<std::string>().substr(0, 80)));
  return std::vector<double>(a.data(), a.data() + a.size());
}

// ---- what a Python policy sees of the tuner -------------------------------

/** PolicyContext for Python: its pointers are the tuner's, valid until close() (the run's end). */
class SearchContext {
 public:
  explicit SearchContext(const PolicyContext &ctx) : ctx_(ctx), rng_(ctx.seed) {}
  void close() { open_ = false; }
  const PolicyContext &ctx() const {
    if (!open_)
      throw UsageError("this SearchContext belongs to a tuning run that has ended; a policy uses the context its "
                       "factory was given, during that run");
    return ctx_;
  }
  /** f(rng) with this context's generator (seeded with the run's seed), or with one seeded by `seed`. */
  template <typename F>
  auto with_rng(const std::optional<uint64_t> &seed, F f) {
    if (seed) {
      std::mt19937_64 own(*seed);
      return f(own);
    }
    return f(rng_);
  }

 private:
  PolicyContext ctx_;
  std::mt19937_64 rng_;
  bool open_ = true;
};
using ContextPtr = std::shared_ptr<SearchContext>;

// ---- trampolines ---------------------------------------------------------------

class PySearchPolicy : public SearchPolicy {
 public:
  std::string name() const override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const SearchPolicy *>(this), "name");
    return f ? f().cast<std::string>() : std::string();
  }
  std::vector<Candidate> next_batch(int n) override {
    PYBIND11_OVERRIDE_PURE(std::vector<Candidate>, SearchPolicy, next_batch, n);
  }
  void notify(const std::vector<Outcome> &results) override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const SearchPolicy *>(this), "notify")) f(results);
  }
};

class PyCostModel : public CostModel {
 public:
  void update(const Rows &features, const std::vector<double> &throughputs) override {
    cost_model::check_update_batch(features, throughputs, "cost model '" + name() + "'");
    py::gil_scoped_acquire gil;
    method("update")(feature_matrix(features), py::array_t<double>(throughputs.size(), throughputs.data()));
    if (!features.empty()) updated_ = true;
  }
  std::vector<double> predict(const Rows &features) const override {
    const std::string who = "cost model '" + name() + "'";
    cost_model::check_feature_rows(features, who);
    py::gil_scoped_acquire gil;
    py::object scores = method("predict")(feature_matrix(features));
    return doubles_from(scores, features.size(), who + ": predict()");
  }
  void save(const std::string &path) const override {
    py::gil_scoped_acquire gil;
    method("save")(path);
  }
  void load(const std::string &path) override {
    py::gil_scoped_acquire gil;
    method("load")(path);
  }
  std::string name() const override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const CostModel *>(this), "name");
    return f ? f().cast<std::string>() : py::str(py::type::of(py::cast(this)).attr("__name__")).cast<std::string>();
  }
  /** The Python trained() when defined, else whether update() has seen a record. */
  bool trained() const override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const CostModel *>(this), "trained");
    return f ? f().cast<bool>() : updated_;
  }

 private:
  py::function method(const char *m) const {
    py::function f = py::get_override(static_cast<const CostModel *>(this), m);
    if (!f)
      throw py::type_error("cost model " + py::repr(py::type::of(py::cast(this))).cast<std::string>() + " defines no " +
                           m + "() method");
    return f;
  }
  bool updated_ = false;
};

// ---- what the registries hand the tuner ------------------------------------

/** The tuner's policy: the Python instance (kept alive) behind its trampoline. */
class OwnedPolicy : public SearchPolicy {
 public:
  OwnedPolicy(py::object instance, ContextPtr context, std::string registered)
      : instance_(std::move(instance)), impl_(instance_.cast<SearchPolicy *>()), context_(std::move(context)),
        registered_(std::move(registered)) {}
  ~OwnedPolicy() override {
    py::gil_scoped_acquire gil;
    context_->close();
    instance_ = py::object();
  }
  std::string name() const override {
    std::string n = impl_->name();
    return n.empty() ? registered_ : n;
  }
  std::vector<Candidate> next_batch(int n) override { return impl_->next_batch(n); }
  void notify(const std::vector<Outcome> &results) override { impl_->notify(results); }

 private:
  py::object instance_;
  SearchPolicy *impl_;
  ContextPtr context_;
  std::string registered_;
};

/** The tuner's cost model: the Python instance (kept alive) behind its trampoline. */
class OwnedModel : public CostModel {
 public:
  explicit OwnedModel(py::object instance) : instance_(std::move(instance)), impl_(instance_.cast<CostModel *>()) {}
  ~OwnedModel() override {
    py::gil_scoped_acquire gil;
    instance_ = py::object();
  }
  void update(const Rows &f, const std::vector<double> &t) override { impl_->update(f, t); }
  std::vector<double> predict(const Rows &f) const override { return impl_->predict(f); }
  void save(const std::string &p) const override { impl_->save(p); }
  void load(const std::string &p) override { impl_->load(p); }
  std::string name() const override { return impl_->name(); }
  bool trained() const override { return impl_->trained(); }

 private:
  py::object instance_;
  CostModel *impl_;
};

// ---- registration ------------------------------------------------------------------

/** Names registered from Python (they may be registered again; built-in names may not). Leaked on purpose. */
std::set<std::string> &python_names(const std::string &kind) {
  static auto *names = new std::map<std::string, std::set<std::string>>();
  return (*names)[kind];
}

void check_new_name(const std::string &kind, const std::string &name, const std::vector<std::string> &known) {
  if (name.empty()) throw py::value_error(kind + " name must not be empty");
  bool exists = false;
  std::string builtin;
  for (const auto &n : known) {
    exists |= n == name;
    if (!python_names(kind).count(n)) builtin += (builtin.empty() ? "" : ", ") + n;
  }
  if (exists && !python_names(kind).count(name))
    throw py::value_error("'" + name + "' is a built-in " + kind + " (built in: " + builtin +
                          "); register yours under another name");
}

/** The instance a Python factory made, checked to be a `Base` (a subclass instance whose __init__ ran). */
template <typename Base>
py::object made_by(const py::object &factory, const py::object &made, const std::string &what) {
  if (!py::isinstance<Base>(made))
    throw py::type_error(what + ": the factory " + py::repr(factory).cast<std::string>() + " returned " +
                         py::repr(made.get_type()).cast<std::string>() + ", not an instance of a subclass of " +
                         py::str(py::type::of<Base>().attr("__qualname__")).cast<std::string>() +
                         " (whose __init__ calls super().__init__())");
  return made;
}

void register_python_policy(const std::string &name, const py::object &factory) {
  check_new_name("search policy", name, autotune::policy::policy_names());
  if (!PyCallable_Check(factory.ptr())) throw py::type_error("register_policy: factory must be callable (a class)");
  auto *held = new py::object(factory);  // leaked: the C++ registry outlives the interpreter
  autotune::policy::register_policy(name, [held, name](const PolicyContext &ctx) -> std::unique_ptr<SearchPolicy> {
    py::gil_scoped_acquire gil;
    auto context = std::make_shared<SearchContext>(ctx);
    py::object made = made_by<SearchPolicy>(*held, (*held)(context), "search policy '" + name + "'");
    if (!py::get_override(made.cast<SearchPolicy *>(), "next_batch"))
      throw py::type_error("search policy '" + name + "': " + py::repr(made.get_type()).cast<std::string>() +
                           " defines no next_batch(n) method");
    return std::make_unique<OwnedPolicy>(made, context, name);
  });
  python_names("search policy").insert(name);
}

void register_python_cost_model(const std::string &name, const py::object &factory) {
  check_new_name("cost model", name, autotune::policy::cost_model_names());
  if (!PyCallable_Check(factory.ptr())) throw py::type_error("register_cost_model: factory must be callable (a class)");
  auto *held = new py::object(factory);  // leaked: the C++ registry outlives the interpreter
  autotune::policy::register_cost_model(name, [held, name](uint64_t seed) -> std::unique_ptr<CostModel> {
    py::gil_scoped_acquire gil;
    py::object made = made_by<CostModel>(*held, (*held)(seed), "cost model '" + name + "'");
    return std::make_unique<OwnedModel>(made);
  });
  python_names("cost model").insert(name);
}

py::array_t<double> scores_array(const std::vector<double> &s) { return py::array_t<double>(s.size(), s.data()); }

void bind_candidates(py::module_ &m) {
  py::class_<Candidate>(m, "Candidate",
                        "A point of a search space (autotune/candidate.h): a sketch index and named integer "
                        "parameters (tile sizes, unroll depth, vector width, ...). Only its space gives it meaning. "
                        "params is returned as a copy: assign a whole dict to change it.")
      .def(py::init([](int sketch, std::map<std::string, int64_t> params) {
             Candidate c;
             c.sketch = sketch;
             c.params = std::move(params);
             return c;
           }),
           "sketch"_a = 0, "params"_a = std::map<std::string, int64_t>{})
      .def_readwrite("sketch", &Candidate::sketch)
      .def_readwrite("params", &Candidate::params)
      .def("key", &Candidate::key, "Canonical text of (sketch, params): equal candidates, equal keys.")
      .def("__eq__", [](const Candidate &a, const Candidate &b) { return a.key() == b.key(); })
      .def("__hash__", [](const Candidate &c) { return std::hash<std::string>()(c.key()); })
      .def("__repr__", [](const Candidate &c) { return "Candidate(" + c.key() + ")"; });

  py::class_<Outcome>(m, "Outcome", "One measured candidate, as notify() receives it.")
      .def_readonly("point", &Outcome::point)
      .def_readonly("ok", &Outcome::ok, "False when it failed (compile error, wrong answer, timeout, ...)")
      .def_readonly("gflops", &Outcome::gflops, "GFLOP/s of its measurement; 0 when it failed")
      .def("__repr__", [](const Outcome &o) {
        return "Outcome(" + o.point.key() + ", " + (o.ok ? std::to_string(o.gflops) + " GFLOP/s" : "failed") + ")";
      });
}

void bind_context(py::module_ &m) {
  using Seed = std::optional<uint64_t>;
  py::class_<SearchContext, ContextPtr>(
      m, "SearchContext",
      "What a search policy can use during its tuning run (policy::PolicyContext): the task, the search space "
      "(sample / mutate / crossover), which schedules are measured, and the cost model. Methods taking seed= draw "
      "from a generator seeded with it, else from the context's own (seeded with the run's seed).")
      .def_property_readonly("task", [](const SearchContext &c) { return *c.ctx().task; })
      .def_property_readonly("seed", [](const SearchContext &c) { return c.ctx().seed; })
      .def_property_readonly("epsilon", [](const SearchContext &c) { return c.ctx().epsilon; },
                             "share of a batch the built-in policies sample at random")
      .def_property_readonly("population", [](const SearchContext &c) { return c.ctx().population; })
      .def_property_readonly("generations", [](const SearchContext &c) { return c.ctx().generations; })
      .def_property_readonly("space_name", [](const SearchContext &c) { return c.ctx().space->name(); })
      .def_property_readonly("model_trained",
                             [](const SearchContext &c) { return c.ctx().model && c.ctx().model->trained(); },
                             "whether predict() carries information (the model has seen measurements)")
      .def_property_readonly("measured_count", [](const SearchContext &c) { return c.ctx().measured->size(); },
                             "schedules measured so far (stored ones of a resumed run included)")
      .def("sample", [](SearchContext &c, const Seed &seed) {
             const PolicyContext &x = c.ctx();
             return c.with_rng(seed, [&](std::mt19937_64 &r) { return x.space->sample(r); });
           }, "seed"_a = py::none(), "A random point of the space (maybe invalid or measured: see is_fresh).")
      .def("mutate", [](SearchContext &c, const Candidate &p, const Seed &seed) {
             const PolicyContext &x = c.ctx();
             return c.with_rng(seed, [&](std::mt19937_64 &r) { return x.space->mutate(p, r); });
           }, "point"_a, "seed"_a = py::none(), "A random neighbour of point (one parameter changed).")
      .def("crossover", [](SearchContext &c, const Candidate &a, const Candidate &b, const Seed &seed) {
             const PolicyContext &x = c.ctx();
             return c.with_rng(seed, [&](std::mt19937_64 &r) { return x.space->crossover(a, b, r); });
           }, "a"_a, "b"_a, "seed"_a = py::none(), "A child mixing the parameters of a and b.")
      .def("sample_fresh", [](SearchContext &c, int n, const Seed &seed) {
             const PolicyContext &x = c.ctx();
             std::set<std::string> taken;
             return c.with_rng(seed,
                               [&](std::mt19937_64 &r) { return autotune::policy::sample_fresh(x, r, n, &taken); });
           }, "n"_a, "seed"_a = py::none(),
           "Up to n valid, unmeasured points with distinct schedules (what the built-in random policy returns).")
      .def("is_fresh", [](const SearchContext &c, const Candidate &p) { return c.ctx().fresh(p); }, "point"_a,
           "Valid (its steps replay) and its schedule not measured yet.")
      .def("is_valid", [](const SearchContext &c, const Candidate &p) { return c.ctx().cache->info(p).valid; },
           "point"_a)
      .def("invalid_reason", [](const SearchContext &c, const Candidate &p) { return c.ctx().cache->info(p).error; },
           "point"_a, "Why point is invalid ('' when it is valid).")
      .def("schedule_key", [](const SearchContext &c, const Candidate &p) { return c.ctx().cache->info(p).steps_key; },
           "point"_a,
           "The dedup key of point's schedule (distinct points may give one schedule); '' for an invalid point.")
      .def("schedule_json", [](const SearchContext &c, const Candidate &p) {
             const PolicyContext &x = c.ctx();
             const auto &info = x.cache->info(p);
             if (!info.valid) throw ScheduleError("invalid point " + p.key() + ": " + info.error);
             return trace_to_json(replay(x.task->outputs, info.steps));
           }, "point"_a, "The schedule trace of point, as a record stores it (ScheduleError for an invalid point).")
      .def("family", [](const SearchContext &c, const Candidate &p) { return c.ctx().space->family(p); }, "point"_a,
           "A coarse structural class of point (sketch, register block, ...); '' when the space has none.")
      .def("seeds", [](const SearchContext &c) { return c.ctx().space->seeds(); },
           "Points an analytical model expects to be good (the built-in policies measure them first).")
      .def("predict", [](const SearchContext &c, const std::vector<Candidate> &points) {
             const PolicyContext &x = c.ctx();
             std::vector<double> s;
             {
               py::gil_scoped_release unlocked;  // lowering for features; a Python model takes the GIL back
               s = x.scores(points);
             }
             return scores_array(s);
           }, "points"_a,
           "Cost-model scores (higher = predicted faster; -inf for an invalid point; all 0 while the model is "
           "untrained), as a NumPy array.")
      .def("features", [](const SearchContext &c, const std::vector<Candidate> &points) {
             const PolicyContext &x = c.ctx();
             Rows rows;
             {
               py::gil_scoped_release unlocked;
               for (const auto &p : points) rows.push_back(x.cache->with_features(p).features);
             }
             for (auto &r : rows)
               if (r.empty()) r.assign(autotune::features::kNumFeatures, 0.0f);  // an invalid point
             return feature_matrix(rows);
           }, "points"_a,
           "The cost-model features of points, float32 [len(points), len(feature_names())] (zeros for an invalid "
           "one).");
}

void bind_abstract_classes(py::module_ &m) {
  py::class_<SearchPolicy, PySearchPolicy>(
      m, "SearchPolicy",
      "Base of a search policy (autotune/policy/policy.h). Subclass it in Python, call super().__init__(), and "
      "define next_batch(n) -> list of up to n Candidates to measure; optionally notify(outcomes) (a list of "
      "Outcome, also for stored records of a resumed run) and name().")
      .def(py::init<>())
      .def("name", &SearchPolicy::name)
      .def("next_batch", &SearchPolicy::next_batch, "n"_a)
      .def("notify", &SearchPolicy::notify, "outcomes"_a);

  py::class_<CostModel, PyCostModel>(
      m, "CostModel",
      "Base of a cost model (autotune/cost_model/cost_model.h). Subclass it in Python, call super().__init__(), and "
      "define update(features, throughputs) (float32 [n, k] and float64 [n]; GFLOP/s, 0 = failed) and "
      "predict(features) -> n scores (higher = faster); optionally trained(), name(), save(path), load(path). "
      "The tuner builds a fresh model after every batch and update()s it once with every record so far. The "
      "methods below call a built-in model (make_cost_model).")
      .def(py::init<>())
      .def("update", [](CostModel &c, py::handle x, py::handle y) {
             Rows rows = rows_from(x, "update(features)");
             std::vector<double> t = doubles_from(y, rows.size(), "update(throughputs)");
             py::gil_scoped_release unlocked;
             c.update(rows, t);
           }, "features"_a, "throughputs"_a)
      .def("predict", [](const CostModel &c, py::handle x) {
             Rows rows = rows_from(x, "predict(features)");
             std::vector<double> s;
             {
               py::gil_scoped_release unlocked;
               s = c.predict(rows);
             }
             return scores_array(s);
           }, "features"_a)
      .def("trained", &CostModel::trained)
      .def("name", &CostModel::name)
      .def("save", &CostModel::save, "path"_a)
      .def("load", &CostModel::load, "path"_a);
}

}  // namespace

void bind_search_plugins(py::module_ &m) {
  bind_candidates(m);
  bind_context(m);
  bind_abstract_classes(m);

  m.def("register_policy", &register_python_policy, "name"_a, "factory"_a,
        "Registers a Python search policy: factory(context: SearchContext) -> SearchPolicy instance, called once per "
        "tune() run. Re-registering a Python name replaces it; built-in names are refused (ValueError).");
  m.def("register_cost_model", &register_python_cost_model, "name"_a, "factory"_a,
        "Registers a Python cost model: factory(seed: int) -> CostModel instance. Built-in names are refused.");
  m.def("policy_names", &autotune::policy::policy_names, "Search policies tune() knows, built-in and registered.");
  m.def("cost_model_names", &autotune::policy::cost_model_names, "Cost models tune() knows, built-in and registered.");
  m.def("space_names", &autotune::policy::space_names, "Search spaces linked in ('ansor', 'basic', 'gpu').");
  m.def("default_space_name", &autotune::policy::default_space_name);
  m.def("make_cost_model", &autotune::policy::make_cost_model, "name"_a, "seed"_a = 0,
        "A fresh cost model of a registered name (e.g. 'xgb'), to train and query from Python.");
  m.def("feature_names", &autotune::features::feature_names, "Names of the cost-model features, in row order.");
}

}  // namespace tetune::python
