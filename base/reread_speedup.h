// Whether data read once comes back from the caches when read again: the
// question a model's weights ask between two inferences. A VM's sysfs reports
// its host's whole L3 (480 MiB on one Xeon guest) of which the guest holds a
// fraction, so the size alone cannot answer it.
#pragma once

#include <cstdint>

namespace tetune {

/**
 * Time to read `bytes` after every line of them was flushed (clflush, from
 * memory) over the time to read them again right after a first read, on the
 * calling thread, one load per 64-byte line, median of 5 rounds. About 1 when
 * the re-read also comes from memory; the L3's speedup over memory when they
 * stay (1.5-2.3 on the Xeon guest above at 8-32 MiB, 1.0 at 133 MiB).
 * Allocates `bytes` for the duration of the call; returns 1.0 without
 * measuring for bytes <= 0, above 2 GiB (larger than any cache) or when the
 * allocation fails; never raises. Measured
 * once per size per process (about 15 reads of `bytes`: 0.2 s at 133 MiB).
 * Units: a ratio of times.
 */
double reread_speedup(int64_t bytes);

/** reread_speedup at which re-read data counts as held by the caches: a quarter faster than memory. */
constexpr double kCachedRereadSpeedup = 1.25;

}  // namespace tetune
