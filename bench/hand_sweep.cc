// Sweeps GemmTiling for the hand GEMM schedule (developer tool; prints ms).
#include <cstdio>
#include <cstdlib>

#include "schedules/hand_schedules.h"
#include "te/tensor.h"
#include "codegen/kernel.h"
#include "te/ops/registry.h"

int main(int argc, char **argv) {
  using namespace tetune;
  int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  set_num_threads(argc > 2 ? std::atoi(argv[2]) : 1);
  auto w = ops::build_op("matmul", {n, n, n});
  std::vector<NDArray> in = {NDArray::random({n, n}, float32(), 1), NDArray::random({n, n}, float32(), 2)};
  std::vector<NDArray> out = {NDArray({n, n}, float32())};
  for (int ti : {64, 128}) for (int tj : {128, 256}) for (int ri : {4, 6, 8}) for (int rj : {32, 64}) for (int uk : {1, 4}) {
    if (tj % rj || ti % ri) continue;
    tetune::schedules::GemmTiling t{ti, tj, ri, rj, uk};
    try {
      auto outs = tetune::schedules::packed_gemm(w.inputs[0], w.inputs[1], rj);
      Kernel k = Kernel::build(tetune::schedules::hand_packed_gemm_schedule(outs, t));
      double ms = k.median_ms(in, out, 1, 5);
      std::printf("ti=%d tj=%d ri=%d rj=%d uk=%d: %.2f ms %.1f GFLOP/s\n", ti, tj, ri, rj, uk, ms, 2.0 * n * n * n / ms / 1e6);
    } catch (const std::exception &e) {
      std::printf("ti=%d tj=%d ri=%d rj=%d: %s\n", ti, tj, ri, rj, e.what());
    }
  }
}
