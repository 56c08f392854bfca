// Bindings of schedule/: the Schedule, its primitives, its stages as they
// stand, and the trace as JSON (written and replayed by schedule/trace.h).
#include <variant>

#include <pybind11/stl.h>

#include "python/src/bindings.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

// A stage as Python names it: by name ("C", "C.local") or by its compute Tensor.
using StageRef = std::variant<std::string, Tensor>;

std::string stage_name(const Schedule &s, const StageRef &ref) {
  if (const auto *name = std::get_if<std::string>(&ref)) return *name;
  return s.stage_of(std::get<Tensor>(ref));
}

const char *attach_kind(Attach::Kind k) {
  switch (k) {
    case Attach::Root: return "root";
    case Attach::Inline: return "inline";
    case Attach::At: return "at";
  }
  return "?";
}

std::vector<Tensor> as_outputs(const py::handle &outputs) {
  if (py::isinstance<Tensor>(outputs)) return {outputs.cast<Tensor>()};
  return outputs.cast<std::vector<Tensor>>();
}

}  // namespace

void bind_schedule(py::module_ &m) {
  py::class_<LeafAxis>(m, "LeafAxis", "A loop of a stage as it stands (a leaf of its split / fuse tree).")
      .def_readonly("name", &LeafAxis::name)
      .def_readonly("extent", &LeafAxis::extent)
      .def_readonly("is_reduce", &LeafAxis::is_reduce)
      .def_readonly("annotation", &LeafAxis::annotation, "'', 'vectorize', 'unroll', 'parallel' or a GPU index")
      .def_readonly("has_tail", &LeafAxis::has_tail, "made by a split whose factor does not divide the extent")
      .def("__repr__", [](const LeafAxis &l) {
        return l.name + "(" + std::to_string(l.extent) + (l.is_reduce ? ", reduce" : "") +
               (l.annotation.empty() ? "" : ", " + l.annotation) + ")";
      });

  py::class_<StageInfo>(m, "Stage", "One stage of a schedule: its loops and where it is computed.")
      .def_readonly("name", &StageInfo::name)
      .def_property_readonly("kind", [](const StageInfo &st) { return st.kind == StageInfo::Compute ? "compute" : "copy"; })
      .def_readonly("tensor", &StageInfo::tensor)
      .def_readonly("is_output", &StageInfo::is_output)
      .def_property_readonly("shape", [](const StageInfo &st) { return py::tuple(py::cast(st.shape)); })
      .def_readonly("spatial_axes", &StageInfo::spatial_axes, "root spatial axes, outermost first")
      .def_property_readonly("reduce_axes", [](const StageInfo &st) {
            std::vector<std::string> names;
            for (const auto &r : st.reduce_axes) names.push_back(r.var.name());
            return names;
          }, "root reduce axes")
      .def_readonly("leaves", &StageInfo::leaves, "the loops as they stand, outermost first")
      .def_property_readonly("loops", [](const StageInfo &st) {
            std::vector<std::string> names;
            for (const auto &l : st.leaves) names.push_back(l.name);
            return names;
          }, "names of the leaves, outermost first")
      .def_property_readonly("attach", [](const StageInfo &st) {
            return py::make_tuple(attach_kind(st.attach.kind), st.attach.stage, st.attach.axis);
          }, "(kind, stage, axis): ('root', '', ''), ('inline', '', '') or ('at', consumer stage, its loop)")
      .def("__repr__", [](const StageInfo &st) {
        std::string loops;
        for (const auto &l : st.leaves) loops += (loops.empty() ? "" : ", ") + l.name;
        return "Stage('" + st.name + "', loops [" + loops + "], " + attach_kind(st.attach.kind) + ")";
      });

  py::class_<Schedule>(m, "Schedule",
                       "How a compute DAG is computed: stages, loops and a replayable trace (schedule/schedule.h). "
                       "Illegal steps raise ScheduleError and leave the schedule unchanged.")
      .def(py::init([](const py::handle &outputs) { return Schedule(as_outputs(outputs)); }), "outputs"_a)
      .def_property_readonly("outputs", &Schedule::outputs)
      .def_property_readonly("inputs", &Schedule::inputs, "placeholders read, in kernel argument order")
      .def_property_readonly("stages", &Schedule::stages)
      .def("stage", [](const Schedule &s, const StageRef &ref) { return s.stage(stage_name(s, ref)); }, "stage"_a)
      .def("has_stage", &Schedule::has_stage, "name"_a)
      .def("stage_of", &Schedule::stage_of, "tensor"_a)
      .def("trace", [](const Schedule &s) {
            std::vector<std::string> steps;
            for (const auto &step : s.trace()) steps.push_back(to_string(step));
            return steps;
          }, "the steps applied so far, as text ('split(C, i, 32, 0)')")
      .def("trace_json", &trace_to_json, "The trace as version-2 JSON text (canonical tensor names).")
      .def_static("from_json",
                  [](const py::handle &outputs, const std::string &json) {
                    std::vector<Tensor> outs = as_outputs(outputs);
                    return replay(outs, trace_from_json(json, outs));
                  },
                  "outputs"_a, "json"_a,
                  "A schedule of outputs with the steps of a trace_json() text replayed (ParseError / ScheduleError).")
      .def("__copy__", [](const Schedule &s) { return Schedule(s); })
      .def("__deepcopy__", [](const Schedule &s, py::dict) { return Schedule(s); }, "memo"_a)
      .def("copy", [](const Schedule &s) { return Schedule(s); }, "An independent copy (to try steps on).")
      // ---- primitives (schedule.h documents each) --------------------------
      .def("split",
           [](Schedule &s, const StageRef &st, const std::string &axis, int64_t factor, const std::string &tail) {
             return s.split(stage_name(s, st), axis, factor, parse_tail_strategy(tail));
           },
           "stage"_a, "axis"_a, "factor"_a, "tail"_a = "auto", "Splits axis by an inner factor; returns (outer, inner).")
      .def("split_nparts",
           [](Schedule &s, const StageRef &st, const std::string &axis, int64_t nparts, const std::string &tail) {
             return s.split_nparts(stage_name(s, st), axis, nparts, parse_tail_strategy(tail));
           },
           "stage"_a, "axis"_a, "nparts"_a, "tail"_a = "auto",
           "Splits axis into nparts outer iterations; returns (outer, inner).")
      .def("tile",
           [](Schedule &s, const StageRef &st, const std::string &x, const std::string &y, int64_t fx, int64_t fy,
              const std::string &tail) { return s.tile(stage_name(s, st), x, y, fx, fy, parse_tail_strategy(tail)); },
           "stage"_a, "x"_a, "y"_a, "x_factor"_a, "y_factor"_a, "tail"_a = "auto",
           "Splits x and y and orders them xo, yo, xi, yi; returns those four names.")
      .def("fuse", [](Schedule &s, const StageRef &st, const std::string &outer, const std::string &inner) {
             return s.fuse(stage_name(s, st), outer, inner);
           }, "stage"_a, "outer"_a, "inner"_a, "Fuses two adjacent loops; returns the fused axis.")
      .def("reorder", [](Schedule &s, const StageRef &st, const std::vector<std::string> &order) {
             s.reorder(stage_name(s, st), order);
           }, "stage"_a, "order"_a, "Permutes the listed loops among the positions they occupy (outermost first).")
      .def("vectorize",
           [](Schedule &s, const StageRef &st, const std::string &axis) { s.vectorize(stage_name(s, st), axis); },
           "stage"_a, "axis"_a)
      .def("unroll", [](Schedule &s, const StageRef &st, const std::string &axis) { s.unroll(stage_name(s, st), axis); },
           "stage"_a, "axis"_a)
      .def("parallel", [](Schedule &s, const StageRef &st, const std::string &axis) { s.parallel(stage_name(s, st), axis); },
           "stage"_a, "axis"_a)
      .def("compute_at", [](Schedule &s, const StageRef &st, const StageRef &target, const std::string &axis) {
             s.compute_at(stage_name(s, st), stage_name(s, target), axis);
           }, "stage"_a, "target"_a, "axis"_a, "Computes stage inside loop axis of target, which consumes it.")
      .def("compute_inline", [](Schedule &s, const StageRef &st) { s.compute_inline(stage_name(s, st)); }, "stage"_a)
      .def("compute_root", [](Schedule &s, const StageRef &st) { s.compute_root(stage_name(s, st)); }, "stage"_a)
      .def("cache_read",
           [](Schedule &s, const StageRef &tensor, const std::vector<StageRef> &readers) {
             std::vector<std::string> names;
             for (const auto &r : readers) names.push_back(stage_name(s, r));
             // A Tensor goes to the C++ overload that also accepts input placeholders.
             if (const auto *t = std::get_if<Tensor>(&tensor)) return s.cache_read(*t, names);
             return s.cache_read(std::get<std::string>(tensor), names);
           },
           "tensor"_a, "readers"_a, "A stage copying tensor that readers read instead; returns its name ('T.cache').")
      .def("cache_write", [](Schedule &s, const StageRef &st) { return s.cache_write(stage_name(s, st)); }, "stage"_a,
           "Moves the computation of stage into a new stage 'S.local' and returns its name.")
      .def("pack_layout",
           [](Schedule &s, const std::string &stage, const std::string &axis, int64_t factor) {
             return s.pack_layout(stage, axis, factor);
           },
           "stage"_a, "axis"_a, "factor"_a,
           "Stores a cache_read stage's axis split (panel packing); returns (axis_o, axis_i).")
      .def("reorder_storage", [](Schedule &s, const StageRef &st, const std::vector<std::string> &order) {
             s.reorder_storage(stage_name(s, st), order);
           }, "stage"_a, "order"_a, "Stores a non-output stage with its root spatial axes in this order.")
      .def("rfactor",
           [](Schedule &s, const StageRef &st, const std::string &axis) { return s.rfactor(stage_name(s, st), axis); },
           "stage"_a, "axis"_a, "Factors the reduction over axis into a new stage 'S.rf' and returns its name.")
      .def("bind", [](Schedule &s, const StageRef &st, const std::string &axis, const std::string &tag) {
             s.bind(stage_name(s, st), axis, tag);
           }, "stage"_a, "axis"_a, "thread_tag"_a, "Binds a loop to blockIdx.{x,y,z} or threadIdx.{x,y,z} (CUDA).")
      .def("__repr__", [](const Schedule &s) {
        std::string text = "Schedule(";
        for (size_t i = 0; i < s.stages().size(); i++) text += (i ? ", " : "") + s.stages()[i].name;
        return text + "; " + std::to_string(s.trace().size()) + " steps)";
      });
}

}  // namespace tetune::python
