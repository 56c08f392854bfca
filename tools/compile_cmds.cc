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
#include "te/errors.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

void add_compile_commands(CLI::App &app) {
  auto *cmd = app.add_subcommand("compile", "AOT-compile an ONNX model into OUT/ (libmodel.so, graph.bin, weights.bin, manifest.json)");
  struct Opts {
    std::string model, out, db, target = "host", cxx;
    std::vector<std::string> shapes;
    int threads = 1;
    bool keep_build = false, quiet = false, plain = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--model", o->model, "ONNX model file")->required();
  cmd->add_option("--input-shape", o->shapes, "NAME=D1,D2,... for each dynamic input (repeatable)");
  cmd->add_option("-o,--out", o->out, "output directory")->required();
  cmd->add_option("--db", o->db, "tuning database with records for the model's tasks (default $TETUNE_DB)");
  cmd->add_option("--target", o->target, "host | cuda | a Halide target string (default host)");
  cmd->add_option("--threads", o->threads, "thread count recorded in the tasks (tuning-record lookup)");
  cmd->add_option("--cxx", o->cxx, "C++ compiler driver used to link libmodel.so (default $CXX or g++)");
  cmd->add_flag("--keep-build", o->keep_build, "keep OUT/build/ (kernel objects, headers, kernel table source)");
  cmd->add_flag("--plain-schedule", o->plain, "bare default schedules (no parallel / vectorize)");
  cmd->add_flag("-q,--quiet", o->quiet, "no per-kernel progress");
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
    eo.model_path = o->model;
    eo.cxx = o->cxx;
    eo.keep_build = o->keep_build;
    eo.verbose = !o->quiet;
    std::string db = o->db;
    if (db.empty() && std::getenv("TETUNE_DB")) db = std::getenv("TETUNE_DB");
    eo.tuning_db = db;
    // Tuned schedules: the best record of each task in the TuningLog (relay/tuned_schedules.h),
    // the default schedule (counted and listed as untuned) for tasks without one.
    auto stats = std::make_shared<relay::TunedLookupStats>();
    if (!db.empty()) {
      relay::use_tuned_schedules(eo.compile, db, stats.get());
      eo.tuned_note = "tuned schedules from " + db + " (default schedule for tasks without a record)";
    }
    relay::ExportResult r = relay::export_model(std::move(g), o->out, eo);
    if (!db.empty()) std::printf("%s", relay::format_lookup_stats(*stats).c_str());
    double t2 = now_s();
    std::printf("compiled %s -> %s/ (target %s)\n", o->model.c_str(), r.dir.c_str(), o->target.c_str());
    std::printf("  %d groups (%d kernels, %d views), %d unique tasks -> %d kernels in libmodel.so\n", r.groups, r.kernel_groups,
                r.view_groups, r.tasks, r.tasks);
    std::printf("  %d tasks tuned, %d tasks untuned (default schedules)%s\n", r.tuned_tasks, r.untuned_tasks,
                db.empty() ? " -- no --db / TETUNE_DB given" : "");
    std::printf("  weights %.2f MB, buffers %.2f MB with reuse (%.2f MB without)\n", r.weights_bytes / 1e6, r.buffer_bytes / 1e6,
                r.no_reuse_bytes / 1e6);
    std::printf("  import %.2f s, passes + fusion %.2f s, codegen %.1f s, link %.1f s, total %.1f s\n", t1 - t0, r.passes_s,
                r.codegen_s, r.link_s, t2 - t0);
    std::printf("wrote %s/libmodel.so, graph.bin, weights.bin, manifest.json%s\n", r.dir.c_str(),
                Target{o->target}.is_gpu() ? ", *.ptx" : "");
  });
  rt::add_run_command(app);
}

}  // namespace cli
}  // namespace tetune
