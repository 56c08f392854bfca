// Shared by the GPU benchmarks: the failing-call check and the no-GPU exit.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "codegen/gpu_runtime.h"

/** Runs a CUDA / cuBLAS / cuDNN call; a non-zero status prints the call and exits 1 (a benchmark, not a library). */
#define GPU_BENCH_CHECK(call)                                          \
  do {                                                                 \
    int rc_ = static_cast<int>(call);                                  \
    if (rc_ != 0) {                                                    \
      std::fprintf(stderr, "%s failed with error %d\n", #call, rc_);   \
      std::exit(1);                                                    \
    }                                                                  \
  } while (0)

namespace tetune {
namespace gpu_bench {

/**
 * True (after saying why) when there is nothing to measure: no CUDA driver or
 * device for Halide, or the CUDA runtime's device_count (cudaGetDeviceCount)
 * finds none. The benchmark then exits 0.
 */
template <typename DeviceCount>
bool no_gpu(const char *bench, DeviceCount device_count) {
  std::string why;
  if (!cuda_device_available(&why)) {
    std::printf("%s: no GPU on this machine (%s); nothing to measure.\n", bench, why.c_str());
    return true;
  }
  int devices = 0;
  if (static_cast<int>(device_count(&devices)) != 0 || devices == 0) {
    std::printf("%s: the CUDA runtime sees no device; nothing to measure.\n", bench);
    return true;
  }
  return false;
}

}  // namespace gpu_bench
}  // namespace tetune
