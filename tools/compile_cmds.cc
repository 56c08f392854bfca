// tetune compile: AOT-export an ONNX model (relay_import/export) to OUT/
// (libmodel.so, graph.bin, weights.bin, manifest.json[, NAME.ptx]);
// tetune run OUT/: run it with the compiler-free runtime (runtime/run_command.h).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/tuned_schedules.h"
#include "runtime/run_command.h"
#include "base/errors.h"
#include "tools/cli_options.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

void add_compile_commands(CLI::App &app) {
  auto *cmd = app.add_subcommand("compile", "AOT-compile an ONNX model into OUT/ (libmodel.so, graph.bin, weights.bin, manifest.json)");
  struct Opts {
    std::string model, out, db, target = "host", cxx, gpu, cost_model;
    std::vector<std::string> shapes;
    int threads = 0;  // set by add_threads_option
    int jobs = 0;     // kernels compiled at once; 0 = one per CPU
    bool keep_build = false, quiet = false, plain = false, no_shipped = false, no_measure = false, no_prepack = false, no_prefetch = false;
    std::string layout;  // set by add_layout_option
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--model", o->model, "ONNX model file")->required();
  cmd->add_option("--input-shape", o->shapes, "NAME=D1,D2,... for each dynamic input (repeatable)");
  cmd->add_option("-o,--out", o->out, "output directory")->required();
  auto *db = add_db_option(cmd, o->db,
                           "tuning log with records for the model's tasks, read instead of the user's log ($TETUNE_DB, "
                           "else $XDG_CACHE_HOME/tetune/tetune.db); it must exist. The shipped log is read after it");
  cmd->add_flag("--no-shipped-log", o->no_shipped, "do not read the shipped log (tuning_logs/shipped.db)");
  auto *no_measure = cmd->add_flag(
      "--no-measure", o->no_measure,
      "read no tuning log at all (neither the user's nor the shipped one): every task gets its default schedule, the cost "
      "model's pick or the analytical default, as before any tuning");
  no_measure->excludes(db);
  cmd->add_option("--cost-model", o->cost_model, kCostModelHelp);
  cmd->add_option("--target", o->target, "host | cuda | a Halide target string (default host)");
  auto *gpu = cmd->add_option("--gpu", o->gpu,
                  "with --target cuda: the GPU whose tuned records to use, as the driver names it (e.g. \"NVIDIA H100 80GB "
                  "HBM3\"; default: this machine's GPU; records of another GPU never apply)");
  no_measure->excludes(gpu);
  add_threads_option(cmd, o->threads, "thread count recorded in the tasks (tuning-record lookup: the count `tune` used)");
  cmd->add_option("-j,--jobs", o->jobs,
                  "kernels compiled at once, each in a child process (default 0: one per CPU this process may run on; "
                  "1: one after another)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cxx", o->cxx, "C++ compiler driver used to link libmodel.so (default $CXX or g++)");
  cmd->add_flag("--keep-build", o->keep_build,
                "keep the build directory (kernel objects, headers, kernel table source): a fresh $TMPDIR/tetune-build-XXXXXX, "
                "printed at the end; nothing is built in or deleted from OUT/");
  cmd->add_flag("--plain-schedule", o->plain, "bare default schedules (no parallel / vectorize)");
  add_layout_option(cmd, o->layout);
  cmd->add_flag("--no-prepack", o->no_prepack,
                "a kernel whose schedule packs a constant weight into panels packs it on every call instead of once, at "
                "compile time (as onnxruntime's session.disable_prepacking)");
  cmd->add_flag("--no-prefetch", o->no_prefetch,
                "kernels do not prefetch the packed weight panels of their next parallel task into the L2 while they "
                "compute (the tuner measures them with it; for comparison)");
  cmd->add_flag("-q,--quiet", o->quiet,
                "no per-kernel progress on stderr. The table of tasks (one line each: name, where its schedule came from "
                "-- record, cost model or analytical -- and how it was chosen) is always printed");
  cmd->callback([o] {
    relay::ImportOptions io;
    for (const auto &s : o->shapes)
      for (auto &kv : relay::parse_input_shapes(s)) io.input_shapes[kv.first] = kv.second;
    double t0 = now_s();
    relay::Graph g = relay::import_onnx(o->model, io);
    double t1 = now_s();
    relay::ExportOptions eo;
    eo.compile.target = Target{o->target};
    eo.compile.threads = o->threads;
    eo.compile.plain_default_schedule = o->plain;
    eo.compile.prepack_weights = !o->no_prepack;
    eo.compile.prefetch_packed = !o->no_prefetch;
    relay::set_layout(eo.compile, o->layout);
    std::unique_ptr<cost_model::CostModel> model;
    eo.compile.untuned = untuned_options(o->cost_model, &model);
    eo.model_path = o->model;
    eo.cxx = o->cxx;
    eo.keep_build = o->keep_build;
    eo.jobs = o->jobs;
    eo.verbose = !o->quiet;
    // The best record of each task in the logs read, the user's (or --db) first, then the shipped one
    // (relay_import/tuned_schedules.h), each opened read-only; the default schedule (eo.compile.untuned)
    // for tasks without one. --no-measure: no log, every task gets the default schedule.
    auto stats = std::make_shared<relay::TunedLookupStats>();
    std::string logs_line;
    if (o->no_measure) {
      logs_line = "no tuning log read (--no-measure)";
      eo.tuned_note = "no tuning log read (--no-measure): default schedules (cost model or analytical)";
    } else {
      relay::TunedLookupOptions lookup;
      lookup.print_notes = false;  // the notes are the records' details in the table below
      relay::use_tuned_schedules(eo.compile, relay::TunedLogs{o->db, !o->no_shipped, o->gpu}, stats.get(), lookup);
      logs_line = "read " + stats->logs;
      for (const auto &[log, n] : stats->tuned_from) logs_line += "\n  " + std::to_string(n) + " tasks from " + log;
      eo.tuning_db = stats->logs;
      eo.tuned_note = "tuned schedules from " + stats->logs + " (default schedule for tasks without a record)";
    }
    relay::ExportResult r = relay::export_model(std::move(g), o->out, eo);
    double t2 = now_s();
    std::printf("compiled %s -> %s/ (target %s)\n", o->model.c_str(), r.dir.c_str(), o->target.c_str());
    std::printf("  %d groups (%d kernels, %d views), %d unique tasks -> %d kernels in libmodel.so\n", r.groups, r.kernel_groups,
                r.view_groups, r.tasks, r.tasks);
    std::printf("schedules: %s\n", logs_line.c_str());
    std::printf("  %d tasks: %s (groups: %s)\n", r.tasks, relay::format_source_counts(r.task_sources).c_str(),
                relay::format_source_counts(r.group_sources).c_str());
    std::printf("%s", relay::format_task_schedules(r.task_schedules).c_str());
    std::printf("%s", relay::format_conv_forms(r.conv_forms).c_str());
    std::printf("  weights %.2f MB, buffers %.2f MB with reuse (%.2f MB without)\n", r.weights_bytes / 1e6, r.buffer_bytes / 1e6,
                r.no_reuse_bytes / 1e6);
    std::printf("  import %.2f s, passes + fusion %.2f s, codegen %.1f s, link %.1f s, total %.1f s\n", t1 - t0, r.passes_s,
                r.codegen_s, r.link_s, t2 - t0);
    std::printf("wrote %s/libmodel.so, graph.bin, weights.bin, manifest.json%s\n", r.dir.c_str(),
                Target{o->target}.is_gpu() ? ", *.ptx" : "");
    if (!r.build_dir.empty()) std::printf("kept the build directory %s/ (--keep-build)\n", r.build_dir.c_str());
  });
  rt::add_run_command(app);
}

}  // namespace cli
}  // namespace tetune
