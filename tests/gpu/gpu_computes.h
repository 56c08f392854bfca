// GEMM and conv2d+bias+relu computes with plain-loop references (as tests/schedule's reference_computes).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "te/ndarray.h"
#include "te/tensor.h"

namespace tetune {
namespace testing {

struct RefCase {
  std::string name;
  std::vector<Tensor> inputs;
  Tensor output;
  std::vector<NDArray> data;
  NDArray expected;
};

inline RefCase gemm_case(int M, int N, int K) {
  RefCase c;
  c.name = "gemm";
  Tensor A = placeholder({M, K}, float32(), "A"), B = placeholder({K, N}, float32(), "B");
  IterVar k = reduce_axis(K, "k");
  c.output = compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C",
                     "matmul", {"i", "j"});
  c.inputs = {A, B};
  c.data = {NDArray::random({M, K}, float32(), 11), NDArray::random({K, N}, float32(), 12)};
  c.expected = NDArray({M, N}, float32());
  const float *a = c.data[0].data<float>(), *b = c.data[1].data<float>();
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int kk = 0; kk < K; kk++) s += double(a[i * K + kk]) * b[kk * N + j];
      c.expected.data<float>()[i * N + j] = static_cast<float>(s);
    }
  return c;
}

inline RefCase conv_case(int N, int C, int H, int W, int K) {
  RefCase c;
  c.name = "conv";
  Tensor X = placeholder({N, C, H, W}, float32(), "X"), Wt = placeholder({K, C, 3, 3}, float32(), "W"),
         Bias = placeholder({K}, float32(), "bias");
  Tensor P = compute({N, C, H + 2, W + 2}, [&](const std::vector<Var> &i) {
    Expr inside = i[2] >= 1 && i[2] <= H && i[3] >= 1 && i[3] <= W;
    return select(inside, X(i[0], i[1], i[2] - 1, i[3] - 1), Expr(0.0f));
  }, "pad", "injective", {"n", "c", "h", "w"});
  IterVar rc = reduce_axis(C, "rc"), ry = reduce_axis(3, "ry"), rx = reduce_axis(3, "rx");
  Tensor Conv = compute({N, K, H, W}, [&](const std::vector<Var> &i) {
    return sum(P(i[0], rc.var, i[2] + ry.var, i[3] + rx.var) * Wt(i[1], rc.var, ry.var, rx.var), {rc, ry, rx});
  }, "conv", "conv2d", {"n", "k", "h", "w"});
  c.output = compute({N, K, H, W}, [&](const std::vector<Var> &i) {
    return max(Conv(i[0], i[1], i[2], i[3]) + Bias(i[1]), Expr(0.0f));
  }, "relu", "elemwise", {"n", "k", "h", "w"});
  c.inputs = {X, Wt, Bias};
  c.data = {NDArray::random({N, C, H, W}, float32(), 21), NDArray::random({K, C, 3, 3}, float32(), 22),
            NDArray::random({K}, float32(), 23)};
  c.expected = NDArray({N, K, H, W}, float32());
  const float *x = c.data[0].data<float>(), *w = c.data[1].data<float>(), *b = c.data[2].data<float>();
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++)
      for (int h = 0; h < H; h++)
        for (int ww = 0; ww < W; ww++) {
          double s = 0;
          for (int cc = 0; cc < C; cc++)
            for (int dy = 0; dy < 3; dy++)
              for (int dx = 0; dx < 3; dx++) {
                int y = h + dy - 1, xx = ww + dx - 1;
                if (y < 0 || y >= H || xx < 0 || xx >= W) continue;
                s += double(x[((n * C + cc) * H + y) * W + xx]) * w[((k * C + cc) * 3 + dy) * 3 + dx];
              }
          c.expected.data<float>()[((n * K + k) * H + h) * W + ww] = static_cast<float>(std::max(s + b[k], 0.0));
        }
  return c;
}

}  // namespace testing
}  // namespace tetune
