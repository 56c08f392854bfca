// Bindings of tuning_logs/: the SQLite tuning log, its records, targets and
// workloads, JSONL export / import. Submodule _core.log.
#include <cerrno>
#include <fstream>
#include <optional>
#include <sstream>

#include <pybind11/stl.h>

#include "base/errors.h"
#include "python/src/bindings.h"
#include "tuning_logs/database.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/log_paths.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

using namespace tuning_log;

/** An open log; close() (or leaving a `with` block) releases the database before the object goes. */
struct PyLog {
  std::optional<TuningLog> log;
  std::string path;

  TuningLog &get() {
    if (!log) throw TuningLogError("tuning log '" + path + "' is closed");
    return *log;
  }
};

PyLog make_log(TuningLog &&log) {
  std::string path = log.path();
  PyLog out{std::move(log), path};
  return out;
}

[[noreturn]] void raise_os_error(const std::string &path) {
  errno = errno ? errno : EIO;
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw py::error_already_set();
}

// A JSONL line as Python data: json.loads of the C++ serialiser's text (one format, not two).
py::object line_as_dict(const JsonlEntry &entry) {
  return py::module_::import("json").attr("loads")(to_jsonl_line(entry));
}

py::dict summary_dict(const WorkloadSummary &w) {
  return py::dict("workload_key"_a = w.workload_key, "op_name"_a = w.op_name, "target_key"_a = w.target_key,
                  "num_records"_a = w.num_records, "num_valid"_a = w.num_valid,
                  "best_median_ms"_a = w.best_median_ms ? py::cast(*w.best_median_ms) : py::none());
}

ExportFilter make_filter(const std::optional<std::string> &workload_key, const std::optional<std::string> &target_key,
                         bool only_valid, const std::optional<int> &top) {
  ExportFilter f;
  f.workload_key = workload_key;
  f.target_key = target_key;
  f.only_valid = only_valid;
  f.top = top;
  return f;
}

}  // namespace

void bind_log(py::module_ &parent) {
  py::module_ m = parent.def_submodule("log", "The tuning log (tuning_logs/database.h)");

  py::class_<MeasureRecord>(m, "Record", "One measurement of one schedule of one workload on one target (costs in ms).")
      .def(py::init<>())
      .def_readwrite("id", &MeasureRecord::id)
      .def_readwrite("workload_key", &MeasureRecord::workload_key)
      .def_readwrite("target_key", &MeasureRecord::target_key)
      .def_readwrite("schedule_json", &MeasureRecord::schedule_json, "the schedule's trace_json()")
      .def_readwrite("costs_ms", &MeasureRecord::costs_ms)
      .def_readwrite("median_ms", &MeasureRecord::median_ms)
      .def_readwrite("error_code", &MeasureRecord::error_code, "0 = success (tuning_logs/error_code.h)")
      .def_readwrite("error_msg", &MeasureRecord::error_msg)
      .def_readwrite("gflops", &MeasureRecord::gflops)
      .def_readwrite("timestamp_unix_ms", &MeasureRecord::timestamp_unix_ms)
      .def_readwrite("tuner_version", &MeasureRecord::tuner_version)
      .def_readwrite("trial_index", &MeasureRecord::trial_index)
      .def_property_readonly("ok", &MeasureRecord::ok)
      .def("to_dict", [](const MeasureRecord &r) {
             py::object line = line_as_dict({std::nullopt, std::nullopt, r});
             return py::object(line["record"]);
           },
           "The record as the JSONL export writes it (with error_name).")
      .def("__eq__", [](const MeasureRecord &a, const MeasureRecord &b) { return same_record(a, b); })
      .def("__repr__", [](const MeasureRecord &r) {
        std::ostringstream s;
        s << "Record(id=" << r.id << ", workload " << r.workload_key << ", median " << r.median_ms << " ms"
          << (r.ok() ? "" : ", failed: " + to_string(static_cast<ErrorCode>(r.error_code))) << ")";
        return s.str();
      });

  py::class_<TargetInfo>(m, "Target", "The machine a record was measured on (tuning_logs/target_info.h).")
      .def(py::init<>())
      .def_readwrite("kind", &TargetInfo::kind)
      .def_readwrite("cpu_model", &TargetInfo::cpu_model)
      .def_readwrite("features", &TargetInfo::features)
      .def_readwrite("threads", &TargetInfo::threads)
      .def_readwrite("library_versions", &TargetInfo::library_versions)
      .def_readwrite("device", &TargetInfo::device)
      .def_property_readonly("key", &TargetInfo::key)
      .def("__eq__", [](const TargetInfo &a, const TargetInfo &b) { return a == b; })
      .def("__repr__", [](const TargetInfo &t) { return "Target(" + t.key() + ")"; });

  py::class_<WorkloadInfo>(m, "Workload", "A tuned computation: its key, operator name and description JSON.")
      .def(py::init<>())
      .def(py::init([](std::string key, std::string op_name, std::string description_json) {
             return WorkloadInfo{std::move(key), std::move(op_name), std::move(description_json)};
           }), "key"_a, "op_name"_a, "description_json"_a = "{}")
      .def_readwrite("key", &WorkloadInfo::key)
      .def_readwrite("op_name", &WorkloadInfo::op_name)
      .def_readwrite("description_json", &WorkloadInfo::description_json)
      .def("__repr__", [](const WorkloadInfo &w) { return "Workload(" + w.key + ", " + w.op_name + ")"; });

  py::class_<BestResult>(m, "BestResult", "best_for_host(): the best records and where they come from.")
      .def_readonly("records", &BestResult::records, "the k best of the target used, best first")
      .def_property_readonly("record", [](const BestResult &b) -> py::object {
            return b.record() ? py::cast(*b.record()) : py::none();
          })
      .def_readonly("exact_target", &BestResult::exact_target)
      .def_readonly("used_target_key", &BestResult::used_target_key)
      .def_readonly("note", &BestResult::note);

  m.def("host_target_info", [](int threads) { return host_target_info(threads); }, "threads"_a = 0,
        "This CPU as a log target; threads <= 0 means all cores.");
  m.def("user_log_path", &user_log_path,
        "$TETUNE_DB, else $XDG_CACHE_HOME/tetune/tetune.db, else ~/.cache/tetune/tetune.db.");
  m.def("shipped_log_path", &shipped_log_path, "The shipped log (read-only package data), or '' when none is found.");

  py::class_<PyLog>(m, "TuningLog", "A tuning-log database (SQLite); use as a context manager or close().")
      .def_static("open",
                  [](const std::optional<std::string> &path) {
                    std::string p = path ? *path : prepare_user_log_path();
                    refuse_writing_shipped_log(p);
                    return make_log(TuningLog::open(p));
                  },
                  "path"_a = py::none(),
                  "Opens for writing (creating it) the log at path, by default the user's log. TuningLogError on failure.")
      .def_static("open_read_only", [](const std::string &path) { return make_log(TuningLog::open_read_only(path)); },
                  "path"_a, "Opens an existing log for reading only.")
      .def_property_readonly("path", [](const PyLog &l) { return l.path; })
      .def_property_readonly("read_only", [](PyLog &l) { return l.get().read_only(); })
      .def_property_readonly("closed", [](const PyLog &l) { return !l.log.has_value(); })
      .def("close", [](PyLog &l) { l.log.reset(); })
      .def("__enter__", [](PyLog &l) -> PyLog & { return l; }, py::return_value_policy::reference)
      .def("__exit__", [](PyLog &l, py::args) { l.log.reset(); })
      .def("records", [](PyLog &l, const std::string &w, const std::string &t) { return l.get().records(w, t); },
           "workload_key"_a, "target_key"_a, "All records of (workload, target), failed ones included, by id.")
      .def("count_records",
           [](PyLog &l, const std::string &w, const std::string &t) { return l.get().count_records(w, t); },
           "workload_key"_a, "target_key"_a)
      .def("count_all_records", [](PyLog &l) { return l.get().count_all_records(); })
      .def("best", [](PyLog &l, const std::string &w, const std::string &t, int k) { return l.get().best(w, t, k); },
           "workload_key"_a, "target_key"_a, "k"_a = 1,
           "The k best-ranked schedules of (workload, target), one successful record each, best first.")
      .def("best_for_host",
           [](PyLog &l, const std::string &w, int threads, int k) {
             return l.get().best_with_fallback(w, host_target_info(threads), k);
           },
           "workload_key"_a, "threads"_a = 0, "k"_a = 1,
           "The best records for this CPU, else of the nearest compatible target (BestResult.note says which).")
      .def("workload", [](PyLog &l, const std::string &key) { return l.get().workload(key); }, "key"_a)
      .def("target", [](PyLog &l, const std::string &key) { return l.get().target(key); }, "key"_a)
      .def("targets", [](PyLog &l) { return l.get().targets(); })
      .def("list_workloads", [](PyLog &l) {
             py::list out;
             for (const auto &w : l.get().list_workloads()) out.append(summary_dict(w));
             return out;
           }, "One dict per (workload, target) with records: keys, op_name, counts, best_median_ms.")
      .def("add_record", [](PyLog &l, const MeasureRecord &r) { return l.get().add_record(r); }, "record"_a,
           "Appends a record (committed on return); returns its id.")
      .def("upsert_workload", [](PyLog &l, const WorkloadInfo &w) { l.get().upsert_workload(w); }, "workload"_a)
      .def("upsert_target", [](PyLog &l, const TargetInfo &t) { l.get().upsert_target(t); }, "target"_a)
      .def("integrity_check", [](PyLog &l) { return l.get().integrity_check(); })
      .def("export_jsonl",
           [](PyLog &l, const std::string &path, const std::optional<std::string> &w, const std::optional<std::string> &t,
              bool only_valid, const std::optional<int> &top) {
             std::ofstream file(path);
             if (!file) raise_os_error(path);
             int64_t n = l.get().export_jsonl(file, make_filter(w, t, only_valid, top));
             file.close();
             if (!file) raise_os_error(path);
             return n;
           },
           "path"_a, "workload_key"_a = py::none(), "target_key"_a = py::none(), "only_valid"_a = false,
           "top"_a = py::none(), "Writes matching records as JSON Lines to path; returns the count.")
      .def("export_dicts",
           [](PyLog &l, const std::optional<std::string> &w, const std::optional<std::string> &t, bool only_valid,
              const std::optional<int> &top) {
             std::ostringstream text;
             l.get().export_jsonl(text, make_filter(w, t, only_valid, top));
             py::list out;
             std::istringstream lines(text.str());
             std::string line;
             py::object loads = py::module_::import("json").attr("loads");
             while (std::getline(lines, line))
               if (!line.empty()) out.append(loads(line));
             return out;
           },
           "workload_key"_a = py::none(), "target_key"_a = py::none(), "only_valid"_a = false, "top"_a = py::none(),
           "The lines export_jsonl would write, as dicts {format, workload, target, record}.")
      .def("import_jsonl",
           [](PyLog &l, const std::string &path) {
             std::ifstream file(path);
             if (!file) raise_os_error(path);
             return l.get().import_jsonl(file);
           },
           "path"_a, "Imports JSON Lines (idempotent); returns the number of records added. ParseError names the line.");
}

}  // namespace tetune::python
