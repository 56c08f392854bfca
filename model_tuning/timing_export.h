// What timing a whole model needs, shared by model_latency and in_model_pick:
// a scratch directory for its export, the export options `compile` would use,
// seeded inputs, and a clock.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/ndarray.h"
#include "relay_import/export/export.h"
#include "relay_import/tuned_schedules.h"
#include "runtime/model.h"

namespace tetune {
namespace autotune {

/** A directory of our own under $TMPDIR (tetune-latency-XXXXXX), removed with everything in it when this goes. */
struct ScratchDir {
  std::string path;
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
};

/** Export options as `tetune compile` sets them for `threads` and `layout` (relay::set_layout); no schedule hook. */
relay::ExportOptions timing_export_options(const std::string &onnx_path, int threads, const std::string &layout);

/**
 * The model as `tetune compile --db` builds it from `logs`: timing_export_options with the tuned
 * schedules hooked in (relay::use_tuned_schedules, its notes not printed). `stats`, when given,
 * counts the tasks that found a record as the export runs the hook.
 */
relay::ExportOptions tuned_export_options(const std::string &onnx_path, int threads, const std::string &layout,
                                          const relay::TunedLogs &logs, relay::TunedLookupStats *stats = nullptr);

/** Seconds on the steady clock (an arbitrary epoch): for intervals. */
double now_s();

/** Inputs for every graph input of m: uniform [-1, 1] floats from seeds 7, 8, ...; zero integers. */
std::vector<NDArray> seeded_inputs(const rt::Model &m);

}  // namespace autotune
}  // namespace tetune
