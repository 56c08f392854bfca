// AOT export of a model for the compiler-free runtime (runtime/model.h).
//
//   relay::ExportOptions o;                 // o.compile = CompileOptions (target, hooks)
//   relay::ExportResult r = relay::export_model(import_onnx(path, io), "OUT", o);
//
// Runs the graph passes and fusion (compile_groups_only), takes one
// ScheduleChoice per unique task from relay::choose_schedule (the
// CompileOptions::schedule_for hook; unset: autotune::default_schedule),
// AOT-compiles each with compile_object(no_runtime = true), compiles one Halide
// runtime object (ExportOptions::jobs of these compiles at once) and links
// them, with a generated kernel table (runtime/plan.h KernelEntry), into
// OUT/libmodel.so using the system C++ compiler
// (`$CXX`, default g++, `-shared -fPIC -Wl,-Bsymbolic`: the kernels bind to
// their own Halide runtime even when another one is loaded). Objects,
// headers and the kernel table are built in a fresh directory made by mkdtemp
// under $TMPDIR (or /tmp), removed afterwards unless ExportOptions::keep_build;
// nothing in OUT/ but the files below is written, and nothing is deleted there
// (an OUT/build/ of the user's is left alone). Writes:
//   OUT/libmodel.so   kernels + Halide runtime (exports halide_set_num_threads)
//   OUT/graph.bin     execution plan (runtime/plan.h): values, groups, kernels, buffers
//   OUT/weights.bin   constants read by the kernels (64-byte aligned)
//   OUT/manifest.json model, inputs / outputs (names, shapes, dtypes), target,
//                     the CPU extensions libmodel.so needs (required_extensions),
//                     tasks and groups counted per schedule source
//                     (tasks_by_source, groups_by_source: "record", "cost
//                     model", "analytical"), per task (task_schedules) its
//                     kernel, first group, workload key, group count,
//                     schedule_source and schedule_detail, with records
//                     the form each Winograd-eligible conv took and the
//                     record times that chose it (conv_forms: conv,
//                     direct_ms, winograd_ms, form; conv_forms.h), tetune version,
//                     and each file's size and SHA-256 (format
//                     rt::kManifestFormat, checked before loading by
//                     runtime/export_check.h)
//   OUT/NAME.ptx      per kernel, for a CUDA target
// The sources are those of the schedules compiled into libmodel.so: a group
// counts under the source of its kernel's schedule.
// Buffers: intermediates share planned buffers by liveness (greedy best fit as
// relay::plan_memory, with view groups aliasing their input's memory); graph
// outputs get buffers of their own. Raises CodegenError / Error on failure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "relay_import/executor.h"
#include "relay_import/graph.h"

namespace tetune {
namespace relay {

constexpr const char *kTetuneVersion = "tetune 0.1";

struct ExportOptions {
  CompileOptions compile;
  std::string cxx;               // compiler driver; "" = $CXX or g++
  bool keep_build = false;       // keep the build directory (objects, headers, kernel table source): ExportResult::build_dir
  std::string model_path;        // for the manifest
  std::string tuning_db;         // for the manifest ("" = none)
  std::string tuned_note;        // for the manifest (how schedules were chosen)
  bool verbose = false;          // progress on stderr
  /**
   * Kernels AOT-compiled at once, each in a forked child (runtime/child_jobs.h;
   * Halide and LLVM compile on one core); 0 = one per CPU this process may run
   * on, 1 = one after another in this process; UsageError below 0. The
   * kernels compute the same either way; the libraries differ in Halide's
   * per-process numbering of internal symbols.
   */
  int jobs = 0;
};

struct ExportResult {
  std::string dir, library;
  std::string build_dir;         // the kept build directory ($TMPDIR/tetune-build-XXXXXX); "" unless keep_build
  int groups = 0, kernel_groups = 0, view_groups = 0;
  int tasks = 0;                        // unique workloads = kernels in libmodel.so
  SourceCounts task_sources;            // tasks by the source of their schedule
  SourceCounts group_sources;           // kernel groups by the source of their kernel's schedule
  std::vector<TaskSchedule> task_schedules;  // per kernel, in kernel order
  std::vector<ConvForms> conv_forms;     // CompileStats::conv_forms: each eligible conv's form and why
  int64_t weights_bytes = 0, buffer_bytes = 0, no_reuse_bytes = 0;
  double passes_s = 0, codegen_s = 0, link_s = 0;
};

ExportResult export_model(Graph g, const std::string &out_dir, const ExportOptions &options = ExportOptions());

}  // namespace relay
}  // namespace tetune
