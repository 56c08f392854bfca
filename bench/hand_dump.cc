#include <cstdio>
#include "bench/hand_schedules.h"
#include "codegen/kernel.h"
#include "te/ops/registry.h"
int main() {
  using namespace tetune;
  auto w = ops::build_op("matmul", {1024, 1024, 1024});
  Kernel k = Kernel::build(bench::hand_gemm_schedule(w.outputs, {64, 256, 8, 32, 4}));
  std::printf("%s\n", k.lowered_stmt().c_str());
}
