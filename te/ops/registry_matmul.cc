// Registry entries: matrix products (te/ops/matmul.h).
#include "te/ops/matmul.h"
#include "te/ops/registry_families.h"

namespace tetune {
namespace ops {
namespace registry_detail {

std::vector<OpEntry> matmul_entries() {
  return {
      {"matmul", "M,N,K", "C[M,N] = A[M,K] B[K,N] (ONNX MatMul / Gemm)", "64,48,40",
       [](const Dims &s) {
         Tensor a = input({s[0], s[2]}, "A"), b = input({s[2], s[1]}, "B");
         return OpWorkload{{a, b}, {matmul(a, b, false, false, "matmul")}};
       }},
      {"batch_matmul", "B,M,N,K", "C[B,M,N] = A[B,M,K] B[B,K,N] (ONNX MatMul, rank 3)", "2,16,24,8",
       [](const Dims &s) {
         Tensor a = input({s[0], s[1], s[3]}, "A"), b = input({s[0], s[3], s[2]}, "B");
         return OpWorkload{{a, b}, {batch_matmul(a, b, false, false, "batch_matmul")}};
       }},
      {"dense", "M,N,K", "Y[M,N] = X[M,K] W[N,K]^T + bias[N] (ONNX Gemm transB=1)", "16,24,32",
       [](const Dims &s) {
         Tensor x = input({s[0], s[2]}, "X"), w = input({s[1], s[2]}, "W"), b = input({s[1]}, "bias");
         return OpWorkload{{x, w, b}, {dense(x, w, b, "dense")}, {w, b}};
       }},
      // B and C as a model's linear layer holds them: initializers, so that run-op and tune-op time the kernel with
      // B packed once, as a compiled model runs it (codegen/prepack.h).
      {"gemm", "M,N,K", "Y[M,N] = A[M,K] B[K,N] + C[N], alpha = beta = 1 (ONNX Gemm with a bias C; B and C weights)",
       "16,24,32",
       [](const Dims &s) {
         Tensor a = input({s[0], s[2]}, "A"), b = input({s[2], s[1]}, "B"), c = input({s[1]}, "C");
         return OpWorkload{{a, b, c}, {gemm(a, b, c, 1.0, 1.0, false, false, "gemm")}, {b, c}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
