// reread_speedup (base/reread_speedup.h): data re-read from the caches counts
// as cached, sizes it does not measure count as from memory.
#include <gtest/gtest.h>

#include "base/reread_speedup.h"

using namespace tetune;

TEST(RereadSpeedup, DataThatFitsTheL2ComesBackFromTheCaches) {
  // 256 KiB fits every x86-64 core's L2 (and L3): re-read several times faster than from memory.
  const double s = reread_speedup(256 << 10);
  EXPECT_GE(s, kCachedRereadSpeedup);
  EXPECT_EQ(reread_speedup(256 << 10), s) << "measured once per size";
}

TEST(RereadSpeedup, SizesBeyondAnyCacheAreNotMeasured) {
  EXPECT_EQ(reread_speedup(0), 1.0);
  EXPECT_EQ(reread_speedup(-5), 1.0);
  EXPECT_EQ(reread_speedup(int64_t{3} << 30), 1.0);
}
