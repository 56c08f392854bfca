#include "model_tuning/timing_export.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>

#include "base/errors.h"

namespace tetune {
namespace autotune {

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tetune-latency-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw Error("cannot create a directory under " + std::filesystem::temp_directory_path().string());
  path = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

relay::ExportOptions timing_export_options(const std::string &onnx_path, int threads, const std::string &layout) {
  relay::ExportOptions eo;
  eo.compile.threads = threads;
  relay::set_layout(eo.compile, layout);
  eo.model_path = onnx_path;
  return eo;
}

relay::ExportOptions tuned_export_options(const std::string &onnx_path, int threads, const std::string &layout,
                                          const relay::TunedLogs &logs, relay::TunedLookupStats *stats) {
  relay::ExportOptions eo = timing_export_options(onnx_path, threads, layout);
  relay::TunedLookupOptions lookup;
  lookup.print_notes = false;
  relay::use_tuned_schedules(eo.compile, logs, stats, lookup);
  return eo;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::vector<NDArray> seeded_inputs(const rt::Model &m) {
  std::vector<NDArray> inputs;
  uint64_t seed = 7;
  for (int32_t v : m.plan().inputs) {
    const rt::PlanValue &in = m.plan().values[v];
    const DType dt{static_cast<DType::Code>(in.dtype_code), in.dtype_bits};
    inputs.push_back(dt.is_float() ? NDArray::random(in.shape, dt, seed++, -1, 1) : NDArray(in.shape, dt));
  }
  return inputs;
}

}  // namespace autotune
}  // namespace tetune
