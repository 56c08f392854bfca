#include "autotune/measure/measure_hooks.h"

#include <utility>

namespace tetune {
namespace autotune {

namespace {
MeasureHooks &process_hooks() {
  static MeasureHooks h;
  return h;
}
thread_local const MeasureHooks *t_thread_hooks = nullptr;  // the innermost ScopedThreadMeasureHooks of this thread
}  // namespace

void set_measure_hooks(MeasureHooks h) { process_hooks() = std::move(h); }
const MeasureHooks &measure_hooks() { return t_thread_hooks ? *t_thread_hooks : process_hooks(); }

ScopedThreadMeasureHooks::ScopedThreadMeasureHooks(MeasureHooks hooks)
    : hooks_(std::move(hooks)), previous_(t_thread_hooks) {
  t_thread_hooks = &hooks_;
}

ScopedThreadMeasureHooks::~ScopedThreadMeasureHooks() { t_thread_hooks = previous_; }

}  // namespace autotune
}  // namespace tetune
