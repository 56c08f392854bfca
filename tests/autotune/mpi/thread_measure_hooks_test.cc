// ScopedThreadMeasureHooks (autotune/measure/measure_hooks.h): a thread's own hooks replace the process's on
// that thread only, and only while the guard lives; tetune-mpi runs one tuning pass per thread with them.
#include <gtest/gtest.h>

#include <thread>

#include "autotune/measure/measure_hooks.h"

namespace tetune {
namespace autotune {
namespace {

// Hooks whose before_tuning writes `mark` into *seen.
MeasureHooks marking(int mark, int *seen) {
  MeasureHooks h;
  h.before_tuning = [mark, seen](const std::vector<Task> &, const MeasureOptions &) { *seen = mark; };
  return h;
}

TEST(ThreadMeasureHooks, ReplaceTheProcessHooksOnTheirThreadOnly) {
  int seen = 0;
  set_measure_hooks(marking(1, &seen));
  int in_thread = 0, other_thread = 0;
  std::thread a([&] {
    {
      ScopedThreadMeasureHooks guard(marking(2, &seen));
      measure_hooks().before_tuning({}, MeasureOptions{});
      in_thread = seen;
      std::thread b([&] {
        measure_hooks().before_tuning({}, MeasureOptions{});
        other_thread = seen;
      });
      b.join();
    }
    measure_hooks().before_tuning({}, MeasureOptions{});  // the guard is gone: the process's again
  });
  a.join();
  EXPECT_EQ(in_thread, 2);
  EXPECT_EQ(other_thread, 1);
  EXPECT_EQ(seen, 1);
  set_measure_hooks({});
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
