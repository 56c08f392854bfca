// Registry entries: pooling over NCHW (te/ops/pool.h, pool_indices.h, max_unpool.h, reduce.h).
// kernel, stride and pad are one number each, applied to H and W.
#include "te/ops/max_unpool.h"
#include "te/ops/pool.h"
#include "te/ops/pool_indices.h"
#include "te/ops/reduce.h"
#include "te/ops/registry_families.h"

namespace tetune {
namespace ops {
namespace registry_detail {

std::vector<OpEntry> pool_entries() {
  return {
      {"max_pool2d", "N,C,H,W,kernel,stride[,pad]", "NCHW max pooling (ONNX MaxPool)", "1,8,12,12,3,2,1",
       [](const Dims &s) {
         int64_t p = opt(s, 6, 0);
         Tensor x = input(take(s, 0, 4), "x");
         return OpWorkload{{x}, {max_pool2d(x, {s[4], s[4]}, {s[5], s[5]}, {p, p, p, p})}};
       }},
      {"max_pool2d_indices", "N,C,H,W,kernel,stride[,pad]",
       "NCHW max pooling and the int64 flat index of each max (ONNX MaxPool with its Indices output)",
       "1,4,10,10,3,2,1",
       [](const Dims &s) {
         int64_t p = opt(s, 6, 0);
         Tensor x = input(take(s, 0, 4), "x");
         Tensor y = max_pool2d(x, {s[4], s[4]}, {s[5], s[5]}, {p, p, p, p});
         return OpWorkload{{x}, {y, max_pool2d_indices(x, y, {s[4], s[4]}, {s[5], s[5]}, {p, p}, {1, 1})}};
       }},
      {"avg_pool2d", "N,C,H,W,kernel,stride[,pad]", "NCHW average pooling (ONNX AveragePool)", "1,8,12,12,3,2,1",
       [](const Dims &s) {
         int64_t p = opt(s, 6, 0);
         Tensor x = input(take(s, 0, 4), "x");
         return OpWorkload{{x}, {avg_pool2d(x, {s[4], s[4]}, {s[5], s[5]}, {p, p, p, p})}};
       }},
      {"global_avg_pool2d", "N,C,H,W", "NCHW -> NC11 mean (ONNX GlobalAveragePool)", "1,16,7,7",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {global_avg_pool2d(x)}};
       }},
      {"global_avg_pool2d_nchwc", "N,CB,H,W,b",
       "NCHW[b]c [N, C/b, H, W, b] -> [N, C/b, 1, 1, b] mean (ONNX GlobalAveragePool in the blocked layout)",
       "1,2,12,16,16",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {reduce_mean(x, {2, 3}, true, "global_avg_pool2d_nchwc")}};
       }},
      {"global_max_pool2d", "N,C,H,W", "NCHW -> NC11 max over H, W (ONNX GlobalMaxPool)", "1,16,7,7",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {reduce_max(x, {2, 3}, true, "global_max_pool2d")}};
       }},
      {"max_unpool2d", "N,C,H,W,kernel,stride",
       "x [N,C,H,W] and int64 indices of x's shape (MaxPool's Indices) scattered into [N,C,OH,OW] "
       "(ONNX MaxUnpool)",
       "1,4,5,5,2,2",
       [](const Dims &s) {
         Tensor x = input(take(s, 0, 4), "x"), idx = placeholder(take(s, 0, 4), int64(), "indices");
         return OpWorkload{{x, idx}, {max_unpool(x, idx, {s[4], s[4]}, {s[5], s[5]}, {0, 0, 0, 0})}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
