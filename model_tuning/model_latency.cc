#include "model_tuning/model_latency.h"

#include <algorithm>
#include <vector>

#include "base/errors.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "model_tuning/timing_export.h"
#include "runtime/model.h"

namespace tetune {
namespace autotune {

ModelLatency measure_model_latency(const std::string &onnx_path, const std::map<std::string, Shape> &input_shapes, int threads,
                                   const relay::TunedLogs &logs, int runs, const std::string &layout) {
  if (runs < 1) throw Error("measure_model_latency: runs must be >= 1, got " + std::to_string(runs));
  relay::ImportOptions io;
  io.input_shapes = input_shapes;
  relay::TunedLookupStats stats;
  const relay::ExportOptions eo = tuned_export_options(onnx_path, threads, layout, logs, &stats);
  ModelLatency r;
  ScratchDir dir;
  const double t0 = now_s();
  relay::export_model(relay::import_onnx(onnx_path, io), dir.path, eo);
  r.compile_s = now_s() - t0;
  r.tuned_tasks = stats.tuned;
  r.tasks = stats.tuned + stats.untuned;
  // The runtime `tetune run` and deployments use, not the JIT executor.
  std::unique_ptr<rt::Model> m = rt::Model::load(dir.path);
  m->set_num_threads(threads);
  const std::vector<NDArray> inputs = seeded_inputs(*m);
  m->run(inputs);  // warm-up: first touch of buffers and weights
  std::vector<double> ms;
  for (int i = 0; i < runs; i++) {
    const double a = now_s();
    m->run(inputs);
    ms.push_back((now_s() - a) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  r.runs = runs;
  r.median_ms = ms[ms.size() / 2];
  r.min_ms = ms.front();
  return r;
}

}  // namespace autotune
}  // namespace tetune
