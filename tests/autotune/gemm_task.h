// The square GEMM task shared by the autotune tests: C[i,j] = sum_k A[i,k] B[k,j]
// with stage "C" and axes i, j, k (tests name them in schedule steps).
#pragma once

#include <string>
#include <vector>

#include "workload/task.h"
#include "te/tensor.h"

namespace tetune {
namespace autotune {
namespace testing {

inline Task gemm_task(int n) {
  Tensor A = placeholder({n, n}, float32(), "A");
  Tensor B = placeholder({n, n}, float32(), "B");
  IterVar k = reduce_axis(n, "k");
  Tensor C = compute({n, n}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C",
                     "matmul", {"i", "j"});
  return make_task("gemm" + std::to_string(n), {C}, Target{}, 1);
}

}  // namespace testing
}  // namespace autotune
}  // namespace tetune
