// Bindings of workload/ and autotune/: tuning tasks, tune() (the C++ tuning
// loop of autotune/tuner.h, run with the GIL released) and its result, and the
// registries with search policies and cost models written in Python
// (search_plugins.cc). Submodule _core.autotune.
#include <optional>
#include <sstream>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "autotune/default_schedule.h"
#include "autotune/tuner.h"
#include "base/errors.h"
#include "python/src/bindings.h"
#include "python/src/search_plugins.h"
#include "python/src/threads.h"
#include "schedule/trace.h"
#include "te/ops/registry.h"
#include "tools/cli_options.h"
#include "tuning_logs/log_paths.h"
#include "workload/op_task.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

using autotune::TuneOptions;
using autotune::TuneProgress;
using autotune::TuneResult;

std::vector<Tensor> outputs_of(py::handle outputs) {
  if (py::isinstance<Tensor>(outputs)) return {outputs.cast<Tensor>()};
  return outputs.cast<std::vector<Tensor>>();
}

Task task_of(py::handle outputs, const std::string &name, const std::string &target,
             const std::optional<int> &threads) {
  std::vector<Tensor> outs = outputs_of(outputs);
  if (outs.empty()) throw py::value_error("Task: no output tensors");
  Target t{target};
  t.is_gpu();  // raises CodegenError naming an unknown target
  return make_task(name.empty() ? outs[0].name() : name, outs, t, threads_or_default(threads));
}

/** The registry operator `op` of `tetune ops` at this shape, named as tune-op names it ("matmul_256x256x256"). */
Task task_from_op(const std::string &op, const std::vector<int64_t> &shape, const std::string &target,
                  const std::optional<int> &threads) {
  Target t{target};
  t.is_gpu();
  return op_task(op, shape, t, threads_or_default(threads));
}

py::dict progress_dict(const TuneProgress &p) {
  return py::dict("trials_done"_a = p.trials_done, "trials_total"_a = p.trials_total,
                  "measured_now"_a = p.measured_now, "errors"_a = p.errors, "best_gflops"_a = p.best_gflops,
                  "elapsed_s"_a = p.elapsed_s, "eta_s"_a = p.eta_s,
                  "record"_a = p.last ? py::cast(*p.last) : py::none());
}

TuneResult run_tune(const Task &given, int trials, const std::string &policy, const std::string &cost_model,
                    const std::string &space, const std::optional<std::string> &db, bool shipped_log, bool resume,
                    uint64_t seed, int batch_size, double timeout_s, const std::string &cache, bool confirm,
                    const std::optional<int> &threads, const std::string &op_name, const py::object &progress) {
  Task task = given;
  if (threads) task.threads = threads_or_default(threads);
  if (trials < 0) throw py::value_error("trials must be >= 0, got " + std::to_string(trials));
  if (batch_size < 1) throw py::value_error("batch_size must be >= 1, got " + std::to_string(batch_size));
  if (!(timeout_s > 0)) throw py::value_error("timeout_s must be > 0");
  cli::require_measurable_here(task.target, "target");
  TuneOptions o;
  o.trials = trials;
  o.batch_size = batch_size;
  o.policy = policy;
  o.cost_model = cost_model;
  o.space = space;
  o.db_path = db.value_or("");
  if (shipped_log) o.read_dbs = {tuning_log::shipped_log_path()};  // "" (none found) is skipped
  o.resume = resume;
  o.seed = seed;
  o.measure.timeout_s = timeout_s;
  o.measure.cache = autotune::parse_cache_state(cache);
  if (!confirm) o.confirm_top = 0;
  o.op_name = op_name;
  if (o.op_name.empty() && !task.outputs[0]->tag.empty()) o.op_name = task.outputs[0]->tag;
  // Between records: Ctrl-C (Python's pending signal) and the caller's callback; an exception stops tune()
  // there (every record measured so far is committed) and reaches the caller.
  o.progress = [&progress](const TuneProgress &p) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(progress_dict(p));
  };
  if (!task.target.is_gpu()) claim_threads(task.threads, "tune()");
  py::gil_scoped_release unlocked;
  return autotune::tune(task, o);
}

void bind_task(py::module_ &m) {
  py::class_<Task>(m, "Task",
                   "A tuning task (workload/task.h): one compute with concrete shapes for one target and thread "
                   "count. Records are keyed by workload_key (equal computes share it) and the target.")
      .def(py::init(&task_of), "outputs"_a, "name"_a = "", "target"_a = "host", "threads"_a = py::none(),
           "A task of the compute producing outputs (a Tensor or a list). name: default the first output's name; "
           "threads: default this machine's cores ($HL_NUM_THREADS).")
      .def_static("from_op", &task_from_op, "op"_a, "shape"_a, "target"_a = "host", "threads"_a = py::none(),
                  "The operator `op` of the registry (`tetune ops`, te.ops.registry()) at its --shape form, e.g. "
                  "('matmul', [256, 256, 256]): the compute tune-op and run-op build. ShapeError when its tensors "
                  "do not fit in memory; OpAttributeError for an unknown op.")
      .def_readonly("name", &Task::name)
      .def_readonly("outputs", &Task::outputs)
      .def_property_readonly("inputs", &Task::inputs, "placeholders read, in kernel argument order")
      .def_property_readonly("target", [](const Task &t) { return t.target.spec; })
      .def_readonly("threads", &Task::threads)
      .def_readonly("workload_key", &Task::workload_key)
      .def_readonly("flops", &Task::flops, "FLOPs of one run (a multiply-add counts 2)")
      .def_readonly("weight", &Task::weight, "occurrences in a model")
      .def("schedule",
           [](const Task &t, py::handle record) {
             std::string json = py::isinstance<py::str>(record) ? record.cast<std::string>()
                                                                : record.attr("schedule_json").cast<std::string>();
             return replay(t.outputs, trace_from_json(json, t.outputs));
           },
           "record"_a,
           "The schedule of a record (a tetune.log.Record or its schedule_json text) replayed on this task's "
           "outputs, to build with tetune.build(). ParseError / ScheduleError when it does not replay.")
      .def("default_schedule", [](const Task &t) { return autotune::default_schedule(t).schedule; },
           "The schedule `compile` gives this task without a record (the analytical default; tune()'s first seed).")
      .def("__repr__", [](const Task &t) {
        std::ostringstream s;
        s << "Task('" << t.name << "', workload " << t.workload_key << ", " << t.flops / 1e9 << " GFLOP, "
          << t.target.spec << ", " << t.threads << " threads)";
        return s.str();
      });
}

void bind_result(py::module_ &m) {
  py::class_<TuneResult>(m, "TuneResult", "What tune() returns (autotune/tuner.h TuneResult).")
      .def_readonly("best", &TuneResult::best,
                    "the record of the best-ranked schedule in the log (stored ones included), or None")
      .def_readonly("best_gflops", &TuneResult::best_gflops)
      .def_property_readonly("curve",
                             [](const TuneResult &r) { return py::array_t<double>(r.curve.size(), r.curve.data()); },
                             "best single-record GFLOP/s after each record (resumed ones first), a NumPy array")
      .def_readonly("measured", &TuneResult::measured, "records added by this call")
      .def_readonly("errors", &TuneResult::errors, "of which failed")
      .def_readonly("confirmed", &TuneResult::confirmed, "of which re-measured top schedules")
      .def_readonly("best_measurements", &TuneResult::best_measurements)
      .def_readonly("total_records", &TuneResult::total_records, "records of (workload, target) after the call")
      .def_readonly("elapsed_s", &TuneResult::elapsed_s)
      .def_readonly("search_s", &TuneResult::search_s)
      .def_readonly("measure_s", &TuneResult::measure_s)
      .def_readonly("target_key", &TuneResult::target_key)
      .def_readonly("space_exhausted", &TuneResult::space_exhausted)
      .def("__repr__", [](const TuneResult &r) {
        std::ostringstream s;
        s << "TuneResult(" << r.total_records << " records, measured " << r.measured << " (" << r.errors
          << " errors), best " << r.best_gflops << " GFLOP/s in " << r.elapsed_s << " s)";
        return s.str();
      });
}

}  // namespace

void bind_autotune(py::module_ &parent) {
  py::module_ m = parent.def_submodule("autotune", "Tuning tasks, tune(), policies and cost models (autotune/)");
  bind_task(m);
  bind_result(m);
  bind_search_plugins(m);
  m.def("tune", &run_tune, "task"_a, py::kw_only(), "trials"_a = 64, "policy"_a = "evolutionary",
        "cost_model"_a = "xgb", "space"_a = "", "db"_a = py::none(), "shipped_log"_a = true, "resume"_a = false,
        "seed"_a = 0, "batch_size"_a = 16, "timeout_s"_a = 20.0, "cache"_a = "warm", "confirm"_a = true,
        "threads"_a = py::none(), "op_name"_a = "", "progress"_a = py::none(),
        "Runs the C++ tuner (autotune::tune) on task; see tetune.autotune.tune.");
}

}  // namespace tetune::python
