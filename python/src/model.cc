// Bindings of whole-model tuning and compilation: tune_model (model_tuning/,
// the code path of `tetune tune`), compile_model (relay_import/export with the
// tuned-schedule lookup, the code path of `tetune compile`) and the
// compiler-free runtime (runtime/model.h) running an export on NumPy arrays.
// Submodule _core.model.
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include <pybind11/stl.h>

#include "base/errors.h"
#include "model_tuning/model_tuning.h"
#include "python/src/arrays.h"
#include "python/src/bindings.h"
#include "python/src/threads.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/tuned_schedules.h"
#include "runtime/model.h"
#include "tools/cli_options.h"
#include "tuning_logs/log_paths.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

using Shapes = std::map<std::string, Shape>;

py::dict progress_dict(const autotune::ModelTuneProgress &p, const std::vector<autotune::ModelTask> &tasks) {
  return py::dict("task"_a = p.task, "task_name"_a = p.task >= 0 ? py::cast(tasks[p.task].task.name) : py::none(),
                  "task_trials"_a = p.task_trials, "task_best_ms"_a = p.task_best_ms, "warmup"_a = p.warmup,
                  "estimated_ms"_a = p.estimated_ms, "tasks_without_result"_a = p.tasks_without_result,
                  "trials_used"_a = p.trials_used, "trials_budget"_a = p.trials_budget, "measured"_a = p.measured,
                  "errors"_a = p.errors, "elapsed_s"_a = p.elapsed_s, "time_left_s"_a = p.time_left_s);
}

autotune::ModelTuneResult run_tune_model(const std::string &onnx_path, const Shapes &shapes, int trials,
                                         double time_budget_s, const std::optional<std::string> &db,
                                         const std::optional<int> &threads_arg, const std::string &policy,
                                         const std::string &cost_model, uint64_t seed, int batch, bool shipped_log,
                                         double timeout_s, double small_task_flops, int small_task_trials,
                                         bool measure_baseline, const std::string &layout, const py::object &progress) {
  if (trials < 0 || time_budget_s < 0) throw py::value_error("trials and time_budget_s must be >= 0");
  if (trials == 0 && time_budget_s == 0)
    throw py::value_error("tune_model: give trials=N or time_budget_s=T (or both)");
  if (batch < 1) throw py::value_error("batch must be >= 1, got " + std::to_string(batch));
  const int threads = threads_or_default(threads_arg);
  autotune::ModelTuneOptions o;
  o.total_trials = trials;
  o.time_budget_s = time_budget_s;
  o.batch = batch;
  o.policy = policy;
  o.cost_model = cost_model;
  o.db_path = db.value_or("");
  if (shipped_log) o.read_dbs = {tuning_log::shipped_log_path()};  // "" (none found) is skipped
  o.seed = seed;
  o.measure.timeout_s = timeout_s;
  o.small_task_flops = small_task_flops;
  o.small_task_trials = small_task_trials;
  o.measure_baseline = measure_baseline;
  // Ctrl-C or an exception of the callback sets the stop flag: tune_model finishes the measurement in flight,
  // commits it and returns; the exception is raised then.
  std::atomic<bool> stop{false};
  std::optional<py::error_already_set> failure;
  o.stop = &stop;
  std::vector<autotune::ModelTask> tasks;
  o.progress = [&](const autotune::ModelTuneProgress &p) {
    if (failure) return;
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none()) progress(progress_dict(p, tasks));
    } catch (py::error_already_set &e) {
      failure = std::move(e);
      stop = true;
    }
  };
  autotune::ModelTuneResult r;
  {
    py::gil_scoped_release unlocked;
    tasks = autotune::extract_model_tasks(onnx_path, shapes, threads, nullptr, layout);
    claim_threads(threads, "tune_model()");
    r = autotune::tune_model(tasks, o);
  }
  if (failure) throw *failure;
  return r;
}

relay::ExportResult run_compile_model(const std::string &onnx_path, const std::string &out_dir, const Shapes &shapes,
                                      const std::optional<std::string> &db, const std::optional<int> &threads,
                                      const std::string &target, bool tuned, bool shipped_log,
                                      const std::string &cost_model, const std::string &cxx, bool keep_build,
                                      bool verbose, const std::string &layout, int jobs) {
  relay::ImportOptions io;
  io.input_shapes = shapes;
  relay::ExportOptions eo;
  eo.compile.target = Target{target};
  eo.compile.threads = threads_or_default(threads);
  relay::set_layout(eo.compile, layout);  // UsageError (tetune.UsageError, a ValueError) for an unknown name
  std::unique_ptr<cost_model::CostModel> model;
  eo.compile.untuned = cli::untuned_options(cost_model, &model);
  eo.model_path = onnx_path;
  eo.cxx = cxx;
  eo.keep_build = keep_build;
  eo.verbose = verbose;
  eo.jobs = jobs;
  if (!tuned && db) throw py::value_error("compile_model: db= names a log to read, but tuned=False reads none");
  py::gil_scoped_release unlocked;
  relay::Graph g = relay::import_onnx(onnx_path, io);
  auto stats = std::make_shared<relay::TunedLookupStats>();
  if (!tuned) {
    eo.tuned_note = "no tuning log read (tuned=False): default schedules (cost model or analytical)";
  } else {
    relay::TunedLookupOptions lookup;
    lookup.print_notes = verbose;
    relay::use_tuned_schedules(eo.compile, relay::TunedLogs{db.value_or(""), shipped_log, ""}, stats.get(), lookup);
    eo.tuning_db = stats->logs;
    eo.tuned_note = "tuned schedules from " + stats->logs + " (default schedule for tasks without a record)";
  }
  return relay::export_model(std::move(g), out_dir, eo);
}

/** A loaded export: rt::Model, its runs serialised (a Model reuses its buffers between runs). */
struct Runner {
  std::unique_ptr<rt::Model> model;
  std::mutex mutex;

  DType dtype_of(int value) const {
    const rt::PlanValue &v = model->plan().values[value];
    return DType{static_cast<DType::Code>(v.dtype_code), v.dtype_bits};
  }

  py::list describe(const std::vector<int32_t> &values) const {
    py::list out;
    for (int v : values) {
      const rt::PlanValue &pv = model->plan().values[v];
      out.append(py::dict("name"_a = pv.name, "shape"_a = py::tuple(py::cast(pv.shape)),
                          "dtype"_a = rt::dtype_name(pv.dtype_code, pv.dtype_bits)));
    }
    return out;
  }

  /** The inputs by name, copied into NDArrays; ShapeError names a missing or unknown one. */
  std::vector<NDArray> inputs_from(const py::dict &given) const {
    const rt::Plan &p = model->plan();
    for (auto kv : given) {
      const std::string name = py::str(kv.first).cast<std::string>();
      bool known = false;
      for (int v : p.inputs) known |= p.values[v].name == name;
      if (!known) throw ShapeError("unknown input '" + name + "' (inputs: " + names(p.inputs) + ")");
    }
    std::vector<NDArray> in;
    for (int v : p.inputs) {
      const std::string &name = p.values[v].name;
      if (!given.contains(name)) throw ShapeError("input '" + name + "' is missing (inputs: " + names(p.inputs) + ")");
      in.push_back(ndarray_from_numpy(given[py::str(name)], dtype_of(v), "input '" + name + "'"));
    }
    return in;
  }

  std::string names(const std::vector<int32_t> &values) const {
    std::string s;
    for (int v : values) s += (s.empty() ? "" : ", ") + model->plan().values[v].name;
    return s;
  }

  py::dict run(const py::dict &given) {
    std::vector<NDArray> in = inputs_from(given), out;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(mutex);
      out = model->run(in);
    }
    py::dict result;
    const rt::Plan &p = model->plan();
    for (size_t i = 0; i < out.size(); i++) result[py::str(p.values[p.outputs[i]].name)] = numpy_from_ndarray(out[i]);
    return result;
  }

  /** Median ms of `repeat` runs, each timed on its own, after `warmup` runs. Zeros for inputs not given. */
  double time(const py::dict &given, int repeat, int warmup) {
    if (repeat < 1) throw py::value_error("repeat must be at least 1, got " + std::to_string(repeat));
    const rt::Plan &p = model->plan();
    py::dict all;  // a new dict: the caller's stays as it was
    for (auto kv : given) all[kv.first] = kv.second;
    for (int v : p.inputs)
      if (!all.contains(p.values[v].name)) {
        py::array zeros = aligned_empty(p.values[v].shape, dtype_of(v));
        std::fill_n(static_cast<char *>(zeros.mutable_data()), zeros.nbytes(), 0);
        all[py::str(p.values[v].name)] = zeros;
      }
    std::vector<NDArray> in = inputs_from(all);
    py::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> lock(mutex);
    for (int i = 0; i < warmup; i++) model->run(in);
    std::vector<double> ms;
    for (int i = 0; i < repeat; i++) {
      auto t0 = std::chrono::steady_clock::now();
      model->run(in);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
  }
};

std::unique_ptr<Runner> load(const std::string &dir, const std::optional<int> &threads) {
  auto r = std::make_unique<Runner>();
  {
    py::gil_scoped_release unlocked;
    r->model = rt::Model::load(dir);
    if (threads) r->model->set_num_threads(threads_or_default(threads));
  }
  return r;
}

py::dict source_counts(const relay::SourceCounts &c) {
  return py::dict("record"_a = c.record, "cost model"_a = c.cost_model, "analytical"_a = c.analytical);
}

void bind_results(py::module_ &m) {
  using autotune::ModelTaskResult;
  using autotune::ModelTuneResult;
  py::class_<ModelTaskResult>(m, "ModelTaskResult", "One task of tune_model(): its records and best latency (ms).")
      .def_readonly("name", &ModelTaskResult::name)
      .def_readonly("workload_key", &ModelTaskResult::workload_key)
      .def_readonly("weight", &ModelTaskResult::weight)
      .def_readonly("flops", &ModelTaskResult::flops)
      .def_readonly("trials", &ModelTaskResult::trials, "records on this target after the run")
      .def_readonly("measured", &ModelTaskResult::measured)
      .def_readonly("errors", &ModelTaskResult::errors)
      .def_readonly("best_ms", &ModelTaskResult::best_ms, "inf when no successful record")
      .def_readonly("gflops", &ModelTaskResult::gflops)
      .def_readonly("baseline_ms", &ModelTaskResult::baseline_ms, "the default schedule (inf when unknown)")
      .def_readonly("small", &ModelTaskResult::small)
      .def_readonly("alternative", &ModelTaskResult::alternative,
                    "the direct form of convs the model runs by Winograd: compile_model takes the faster form by the records")
      .def("__repr__", [](const ModelTaskResult &t) {
        return "ModelTaskResult('" + t.name + "', " + std::to_string(t.trials) + " records, best " +
               std::to_string(t.best_ms) + " ms)";
      });
  py::class_<ModelTuneResult>(m, "ModelTuneResult", "What tune_model() returns (model_tuning/model_tuning.h).")
      .def_readonly("tasks", &ModelTuneResult::tasks)
      .def_readonly("measured", &ModelTuneResult::measured)
      .def_readonly("errors", &ModelTuneResult::errors)
      .def_readonly("trials_used", &ModelTuneResult::trials_used)
      .def_readonly("steps", &ModelTuneResult::steps)
      .def_readonly("elapsed_s", &ModelTuneResult::elapsed_s)
      .def_readonly("estimated_before_ms", &ModelTuneResult::estimated_before_ms, "sum of weight * best at the start")
      .def_readonly("estimated_after_ms", &ModelTuneResult::estimated_after_ms, "sum of weight * best, ranked warm")
      .def_readonly("estimated_as_in_model_ms", &ModelTuneResult::estimated_as_in_model_ms,
                    "the same with each task's top 3 timed again with their weights flushed, as in a model, and the "
                    "fastest so picked (what compile_model takes); -1 when that step did not run")
      .def_readonly("confirmable_tasks", &ModelTuneResult::confirmable_tasks, "tasks with weights and a record, which that step looked at")
      .def_readonly("picks_timed_as_in_model", &ModelTuneResult::picks_timed_as_in_model,
                    "of them, those whose pick was timed with its weights flushed (the rest: as ranked warm, "
                    "the time budget having run out)")
      .def_readonly("without_result_before", &ModelTuneResult::without_result_before)
      .def_readonly("without_result_after", &ModelTuneResult::without_result_after)
      .def_readonly("baseline_ms", &ModelTuneResult::baseline_ms, "sum of weight * default-schedule latency")
      .def_readonly("interrupted", &ModelTuneResult::interrupted)
      .def_readonly("deadline", &ModelTuneResult::deadline, "the time budget ran out");

  py::class_<relay::ExportResult>(m, "ExportResult", "What compile_model() wrote (relay_import/export/export.h).")
      .def_readonly("dir", &relay::ExportResult::dir)
      .def_readonly("library", &relay::ExportResult::library)
      .def_readonly("build_dir", &relay::ExportResult::build_dir, "the kept build directory ('' unless keep_build)")
      .def_readonly("groups", &relay::ExportResult::groups)
      .def_readonly("kernel_groups", &relay::ExportResult::kernel_groups)
      .def_readonly("tasks", &relay::ExportResult::tasks, "unique workloads = kernels in libmodel.so")
      .def_property_readonly("task_sources", [](const relay::ExportResult &r) { return source_counts(r.task_sources); },
                             "tasks per schedule source: {'record': n, 'cost model': n, 'analytical': n}")
      .def_property_readonly("task_schedules", [](const relay::ExportResult &r) {
            py::list out;
            for (const auto &t : r.task_schedules)
              out.append(py::dict("group"_a = t.group, "workload_key"_a = t.workload_key, "groups"_a = t.groups,
                                  "source"_a = source_name(t.source), "detail"_a = t.detail));
            return out;
          }, "per kernel: its first group, workload key, group count, schedule source and detail")
      .def_readonly("weights_bytes", &relay::ExportResult::weights_bytes)
      .def_readonly("buffer_bytes", &relay::ExportResult::buffer_bytes);
}

}  // namespace

void bind_model(py::module_ &parent) {
  py::module_ m = parent.def_submodule("model", "Tuning, compiling and running ONNX models");
  bind_results(m);
  m.def("parse_input_shapes", &relay::parse_input_shapes, "spec"_a,
        "'x=1,3,224,224;y=...' (the --input-shape form) -> {name: shape}. ParseError naming the bad part.");
  m.def("tune_model", &run_tune_model, "onnx_path"_a, py::kw_only(), "input_shapes"_a = Shapes{}, "trials"_a = 0,
        "time_budget_s"_a = 0.0, "db"_a = py::none(), "threads"_a = py::none(), "policy"_a = "evolutionary",
        "cost_model"_a = "xgb", "seed"_a = 0, "batch"_a = 16, "shipped_log"_a = true, "timeout_s"_a = 20.0,
        "small_task_flops"_a = 1e5, "small_task_trials"_a = 2, "measure_baseline"_a = true, "layout"_a = "blocked",
        "progress"_a = py::none(), "`tetune tune` (see tetune.model.tune_model).");
  m.def("compile_model", &run_compile_model, "onnx_path"_a, "out_dir"_a, py::kw_only(), "input_shapes"_a = Shapes{},
        "db"_a = py::none(), "threads"_a = py::none(), "target"_a = "host", "tuned"_a = true, "shipped_log"_a = true,
        "cost_model"_a = "", "cxx"_a = "", "keep_build"_a = false, "verbose"_a = false, "layout"_a = "blocked",
        "jobs"_a = 0, "`tetune compile` (see tetune.model.compile_model).");

  py::class_<Runner>(m, "Runner", "An exported model loaded by the compiler-free runtime (runtime/model.h).")
      .def_property_readonly("dir", [](const Runner &r) { return r.model->dir(); })
      .def_property_readonly("inputs", [](const Runner &r) { return r.describe(r.model->plan().inputs); },
                             "[{name, shape, dtype}] in graph-input order")
      .def_property_readonly("outputs", [](const Runner &r) { return r.describe(r.model->plan().outputs); })
      .def_property_readonly("weights_bytes", [](const Runner &r) { return r.model->weights_bytes(); })
      .def_property_readonly("buffer_bytes", [](const Runner &r) { return r.model->buffer_bytes(); })
      .def("run", &Runner::run, "inputs"_a,
           "{input name: array} -> {output name: new array}. The arrays are copied; a wrong or missing name, shape "
           "or dtype raises ShapeError naming the input (no silent conversion).")
      .def("time", &Runner::time, "inputs"_a, "repeat"_a = 50, "warmup"_a = 1,
           "Median ms of `repeat` runs, each timed on its own, after `warmup` runs; inputs not given are zeros.");
  m.def("load", &load, "export_dir"_a, "threads"_a = py::none(),
        "Loads an export of compile_model() / `tetune compile` (ExportCheckError, before anything is loaded, when "
        "this CPU cannot run it or a file differs from manifest.json). threads: set before the first run.");
}

}  // namespace tetune::python
