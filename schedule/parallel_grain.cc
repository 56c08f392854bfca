#include "schedule/parallel_grain.h"

namespace tetune {

std::string parallel_with_max_tasks(Schedule &s, const std::string &stage, const std::string &loop, int64_t max_tasks) {
  const StageInfo &st = s.stage(stage);
  int i = st.leaf_index(loop);
  int64_t extent = i < 0 ? -1 : st.leaves[i].extent;
  if (max_tasks <= 0 || extent <= max_tasks) {
    s.parallel(stage, loop);
    return loop;
  }
  // Parts of ceil(extent / max_tasks) iterations: the guarded tail is less
  // than one part (split_nparts(max_tasks) would pad 44 iterations to 32 x 2).
  const int64_t part = (extent + max_tasks - 1) / max_tasks;
  auto outer_inner = s.split(stage, loop, part, TailStrategy::GuardWithIf);
  s.parallel(stage, outer_inner.first);
  return outer_inner.first;
}

}  // namespace tetune
