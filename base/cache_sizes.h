// The host's data cache sizes, which decide how a task is timed inside a
// model (model_tuning.h: where its weights come from on each inference) and
// how much of its weights a GEMM fetches ahead (codegen/next_task_prefetch.h).
#pragma once

#include <cstdint>
#include <string>

namespace tetune {

struct CacheSizes {
  int64_t l2_bytes = 0;  // the unified L2 of one core; 0 when unknown
  int64_t l3_bytes = 0;  // the L3 the core shares; 0 when unknown
};

/**
 * This machine's sizes, from Linux's /sys/devices/system/cpu/cpu0/cache/index*
 * (level, type, size). sysconf's _SC_LEVEL3_CACHE_SIZE is not used: in a VM it
 * reported the host's 384 MiB where the guest's L3 slice is 32 MiB. Unknown
 * levels stay 0; never raises. Read once per process: every kernel lowering
 * asks (codegen/lower.cc), thousands of times in a tune.
 */
CacheSizes host_cache_sizes();

/** A sysfs cache size ("1024K", "32M", "512") in bytes; 0 for text it cannot read. */
int64_t parse_cache_size(const std::string &text);

}  // namespace tetune
