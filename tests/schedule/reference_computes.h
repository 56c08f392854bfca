// Small hand-written computes and plain-loop references for schedule tests.
#pragma once

#include <vector>

#include "base/ndarray.h"
#include "te/tensor.h"

namespace tetune {
namespace testing {

/** A computed DAG with its inputs and a plain C++ reference of its output. */
struct RefCase {
  std::string name;
  std::vector<Tensor> inputs;
  Tensor output;
  std::vector<NDArray> data;
  NDArray expected;
};

/** C[i,j] = sum_k A[i,k] * B[k,j]. */
RefCase gemm_case(int M, int N, int K);
/** NCHW conv2d with a separate zero-pad stage, stride 1, pad 1, 3x3, then bias + relu. */
RefCase conv_case(int N, int C, int H, int W, int K);
/** Softmax over the last axis of [R, L] in four stages (max, exp, sum, div). */
RefCase softmax_case(int R, int L);

}  // namespace testing
}  // namespace tetune
