// set_num_threads after a first kernel run that no call preceded: the run fixed
// the default count (the spin pool's: $HL_NUM_THREADS or the cores), so setting
// that same count is accepted and any other count is refused. One process per
// test binary: the thread count is process state.
#include <gtest/gtest.h>

#include "base/errors.h"
#include "codegen/kernel.h"
#include "runtime/spin_pool.h"

namespace tetune {
namespace {

TEST(ThreadCount, FirstRunFixesTheDefaultCount) {
  Tensor A = placeholder({8, 5}, float32(), "A");
  Tensor B = compute({8, 5}, [&](const std::vector<Var> &i) { return A(i[0], i[1]) * Expr(2.0f); }, "B");
  Schedule s({B});
  NDArray a = NDArray::random({8, 5}, float32(), 1);
  std::vector<NDArray> out = Kernel::build(s).run({a});
  EXPECT_NEAR(out[0].get(7), 2 * a.get(7), 1e-6);
  const int used = rt::SpinPool::get().threads();
  EXPECT_EQ(num_threads(), used);
  EXPECT_NO_THROW(set_num_threads(used)) << "the count the first run used";
  EXPECT_THROW(set_num_threads(used + 1), RuntimeError);
}

}  // namespace
}  // namespace tetune
