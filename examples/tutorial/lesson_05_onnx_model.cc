// Lesson 5: compile and run an ONNX model with a tuning log.
//
// A model is many operators. relay_import reads the ONNX file (the input
// shapes made concrete), lowers each node to operators of te/ops (lesson 4),
// runs graph passes (constant folding, batch norms folded into convolutions)
// and fuses the graph into groups: a convolution with the elementwise
// operators after it is one kernel. Each group is a tuning task with a
// workload key, and equal groups share one kernel.
//
// Compiling gives every task a schedule: the best record of the tuning logs
// read (yours, then the shipped one) when there is one, else an analytical
// default (GEMMs and convolutions blocked for the cache, elementwise ops
// vectorized). export_model compiles each kernel ahead of time into
// OUT/libmodel.so with graph.bin, weights.bin and manifest.json; the
// compiler-free runtime (runtime/model.h, what `tetune run` and tetune_run
// use) loads and runs it. The JIT executor (relay::compile_model, `tetune
// run-model`) runs the same graph in-process.
//
// This lesson tunes the model's heaviest task for a few trials into a
// temporary log (lesson 3), exports the model with that log, runs the export
// and checks it against the JIT executor with default schedules. It takes
// the PaddleOCR text-direction classifier (models/ppocr/, fetched by
// tools/setup.sh) and says so and exits 0 when the model is absent. Compiling
// its 60 kernels twice takes most of its time (about 20 s on 2 cores).
//
//   bazel run //examples/tutorial:lesson_05_onnx_model
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "autotune/tuner.h"
#include "base/errors.h"
#include "model_tuning/model_tuning.h"
#include "relay_import/executor.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/tuned_schedules.h"
#include "runtime/model.h"

using namespace tetune;

namespace {

void check(bool ok, const std::string &what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::exit(1);
}

// models/: $TETUNE_MODELS (set by the lesson's test), else the workspace's
// (`bazel run` sets BUILD_WORKSPACE_DIRECTORY), else ./models.
std::string models_dir() {
  if (const char *m = std::getenv("TETUNE_MODELS")) return m;
  if (const char *w = std::getenv("BUILD_WORKSPACE_DIRECTORY")) return std::string(w) + "/models";
  return "models";
}

std::string make_temp_dir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tetune-lesson5-XXXXXX";
  check(mkdtemp(pattern.data()) != nullptr, "cannot create a directory under $TMPDIR");
  return pattern;
}

}  // namespace

int main() {
  const std::string model = models_dir() + "/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx";
  struct stat st;
  if (stat(model.c_str(), &st) != 0) {
    std::printf("skipped: %s is missing (tools/setup.sh fetches the PaddleOCR models into models/ppocr/)\n",
                model.c_str());
    return 0;
  }
  const int threads = 1;  // tuned, compiled and run with one thread
  const std::map<std::string, Shape> shapes = {{"x", {1, 3, 48, 192}}};  // x is [?, 3, 48, ?] in the file
  std::string dir = make_temp_dir(), log_path = dir + "/lesson5.db", out_dir = dir + "/out";

  // 1. The model's tasks; tune the heaviest (flops x occurrences) for 8 trials.
  std::vector<autotune::ModelTask> tasks = autotune::extract_model_tasks(model, shapes, threads);
  auto heaviest = std::max_element(tasks.begin(), tasks.end(), [](const auto &a, const auto &b) {
    return a.task.flops * a.task.weight < b.task.flops * b.task.weight;
  });
  std::printf("%s: %zu tasks; tuning the heaviest, %s (%.2f MFLOP x %.0f)\n", model.c_str(), tasks.size(),
              heaviest->task.name.c_str(), heaviest->task.flops / 1e6, heaviest->task.weight);
  autotune::TuneOptions tune;
  tune.trials = 8;
  tune.batch_size = 8;
  tune.db_path = log_path;
  tune.seed = 1;
  autotune::TuneResult tuned = autotune::tune(heaviest->task, tune);
  check(tuned.best.has_value(), "tuning found no valid schedule");
  std::printf("  best of %d records: %.1f GFLOP/s\n", tuned.total_records, tuned.best_gflops);

  // 2. Export with that log (and not the shipped one): that task's schedule is its record.
  relay::ImportOptions import;
  import.input_shapes = shapes;
  relay::ExportOptions eo;
  eo.compile.threads = threads;
  relay::TunedLookupStats stats;
  relay::TunedLookupOptions quiet;
  quiet.print_notes = false;
  relay::use_tuned_schedules(eo.compile, relay::TunedLogs{log_path, /*shipped=*/false, ""}, &stats, quiet);
  relay::ExportResult exported = relay::export_model(relay::import_onnx(model, import), out_dir, eo);
  std::printf("exported %d kernels to %s in %.1f s; schedules: %s\n", exported.tasks, out_dir.c_str(),
              exported.codegen_s + exported.link_s, relay::format_source_counts(exported.task_sources).c_str());
  check(exported.task_sources.record == 1, "the tuned task should take its schedule from the log");
  for (const auto &t : exported.task_schedules)
    if (t.source == ScheduleSource::Record) std::printf("  %s: %s\n", t.group.c_str(), t.detail.c_str());

  // 3. Run the export with the compiler-free runtime.
  std::unique_ptr<rt::Model> runtime = rt::Model::load(out_dir);
  runtime->set_num_threads(threads);
  NDArray x = NDArray::random(shapes.at("x"), float32(), 7);
  std::vector<NDArray> y = runtime->run({x});

  // 4. The JIT executor (default schedules, no log) on the same input.
  relay::CompileOptions jit;
  jit.threads = threads;
  relay::CompiledModel reference = relay::compile_model(relay::import_onnx(model, import), jit);
  std::vector<NDArray> expected = reference.run({x});
  check(y.size() == expected.size(), "the export and the executor give different output counts");
  for (size_t i = 0; i < y.size(); i++) {
    double error = scaled_max_error(y[i], expected[i]);
    std::printf("output %s %s: export [%g, %g], executor [%g, %g], scaled error %.1e\n",
                runtime->output_names()[i].c_str(), shape_str(y[i].shape()).c_str(), y[i].get(0), y[i].get(1),
                expected[i].get(0), expected[i].get(1), error);
    check(error < 1e-4, "the exported model differs from the executor");
  }

  std::filesystem::remove_all(dir);  // the lesson's own log and export
  std::printf("\nlesson 5 OK\n");
  return 0;
}
