// Registry entries: reductions, softmax, normalisation and scans (te/ops/reduce.h,
// softmax.h, norm.h, lrn.h, cumsum.h, topk.h). "Over the last axis" unless said otherwise.
#include "te/ops/cumsum.h"
#include "te/ops/lrn.h"
#include "te/ops/norm.h"
#include "te/ops/reduce.h"
#include "te/ops/registry_families.h"
#include "te/ops/softmax.h"
#include "te/ops/topk.h"

namespace tetune {
namespace ops {
namespace registry_detail {

namespace {

using Reduce = Tensor (*)(const Tensor &, const std::vector<int64_t> &, bool, const std::string &);

OpEntry last_axis_reduce(const char *name, Reduce f, const std::string &description) {
  return {name, "D0,...,Dn", description, "6,40", [f, name](const Dims &s) {
            Tensor x = input(s, "x");
            return OpWorkload{{x}, {f(x, {-1}, true, name)}};
          }};
}

OpEntry arg_entry(const char *name, bool is_max, const std::string &description) {
  return {name, "D0,...,Dn", description, "6,40", [is_max, name](const Dims &s) {
            Tensor x = input(s, "x");
            return OpWorkload{{x}, {arg_reduce(x, -1, is_max, false, true, name)}};
          }};
}

}  // namespace

std::vector<OpEntry> reduce_norm_entries() {
  return {
      {"reduce_mean", "D0,...,Dn", "mean over the last axis, keepdims (ONNX ReduceMean)", "6,40",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {reduce_mean(x, {-1}, true)}};
       }},
      last_axis_reduce("reduce_sum", reduce_sum, "sum over the last axis, keepdims (ONNX ReduceSum)"),
      last_axis_reduce("reduce_max", reduce_max, "max over the last axis, keepdims (ONNX ReduceMax)"),
      last_axis_reduce("reduce_min", reduce_min, "min over the last axis, keepdims (ONNX ReduceMin)"),
      last_axis_reduce("reduce_prod", reduce_prod, "product over the last axis, keepdims (ONNX ReduceProd)"),
      arg_entry("argmax", true, "int64 position of the first max over the last axis, keepdims (ONNX ArgMax)"),
      arg_entry("argmin", false, "int64 position of the first min over the last axis, keepdims (ONNX ArgMin)"),
      {"softmax", "D0,...,Dn", "softmax over the last axis (ONNX Softmax, opset 13)", "6,40",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {softmax(x, -1)}};
       }},
      {"log_softmax", "D0,...,Dn", "log of softmax over the last axis (ONNX LogSoftmax, opset 13)", "6,40",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {log_softmax(x, -1)}};
       }},
      {"cumsum", "D0,...,Dn", "inclusive running sum along the last axis (ONNX CumSum)", "6,40",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {cumsum(x, -1)}};
       }},
      {"topk", "k,D0,...,Dn", "the k largest along the last axis, values and int64 indices (ONNX TopK)", "3,6,20",
       [](const Dims &s) {
         Tensor x = input(take(s, 1, s.size() - 1), "x");
         auto [values, indices] = topk(x, s[0], -1, true);
         return OpWorkload{{x}, {values, indices}};
       }},
      {"layer_norm", "D0,...,Dn", "layer norm over the last axis with scale and bias (ONNX LayerNormalization)",
       "6,40",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         Tensor g = input({s.back()}, "scale"), b = input({s.back()}, "bias");
         return OpWorkload{{x, g, b}, {layer_norm(x, g, b, -1, 1e-5)}, {g, b}};
       }},
      {"batch_norm", "N,C,H,W",
       "NCHW (x - mean[c]) / sqrt(var[c] + 1e-5) * scale[c] + bias[c] (ONNX BatchNormalization, inference)",
       "2,8,6,6",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         std::vector<Tensor> p;
         for (const char *n : {"scale", "bias", "mean", "var"}) p.push_back(input({s[1]}, n));
         return OpWorkload{{x, p[0], p[1], p[2], p[3]}, {batch_norm_inference(x, p[0], p[1], p[2], p[3], 1e-5)}, p};
       }},
      {"lrn", "N,C,H,W,size",
       "NCHW local response normalisation across channels, alpha 1e-4, beta 0.75, bias 1 (ONNX LRN)", "1,8,6,6,5",
       [](const Dims &s) {
         Tensor x = input(take(s, 0, 4), "x");
         return OpWorkload{{x}, {lrn(x, s[4], 1e-4, 0.75, 1.0)}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
