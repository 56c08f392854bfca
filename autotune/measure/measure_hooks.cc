#include "autotune/measure/measure_hooks.h"

#include <utility>

namespace tetune {
namespace autotune {

namespace {
MeasureHooks &hooks() {
  static MeasureHooks h;
  return h;
}
}  // namespace

void set_measure_hooks(MeasureHooks h) { hooks() = std::move(h); }
const MeasureHooks &measure_hooks() { return hooks(); }

}  // namespace autotune
}  // namespace tetune
