#include "te/ops/registry.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "base/errors.h"
#include "te/ops/conv.h"
#include "te/ops/elementwise.h"
#include "te/ops/matmul.h"
#include "te/ops/norm.h"
#include "te/ops/pool.h"
#include "te/ops/reduce.h"
#include "te/ops/softmax.h"

namespace tetune {
namespace ops {

namespace {
using Dims = std::vector<int64_t>;

Dims take(const Dims &d, size_t from, size_t n) { return Dims(d.begin() + from, d.begin() + from + n); }

OpWorkload unary_op(const Dims &s, Tensor (*f)(const Tensor &, const std::string &), const char *name) {
  Tensor x = placeholder(s, float32(), "x");
  return {{x}, {f(x, name)}};
}

OpWorkload conv_op(const Dims &s, bool depthwise) {
  // N,C,H,W,K,R,S[,stride[,pad]]
  int64_t stride = s.size() > 7 ? s[7] : 1, pad = s.size() > 8 ? s[8] : 0;
  int64_t groups = depthwise ? s[1] : 1;
  Tensor x = placeholder(take(s, 0, 4), float32(), "x");
  Tensor w = placeholder({s[4], s[1] / groups, s[5], s[6]}, float32(), "w");
  return {{x, w}, {conv2d(x, w, Tensor(), {stride, stride}, {pad, pad, pad, pad}, {1, 1}, groups, "conv2d")}};
}

std::vector<OpEntry> make_registry() {
  std::vector<OpEntry> r = {
      {"matmul", "M,N,K", "C[M,N] = A[M,K] B[K,N] (ONNX MatMul / Gemm)", [](const Dims &s) {
         Tensor a = placeholder({s[0], s[2]}, float32(), "A"), b = placeholder({s[2], s[1]}, float32(), "B");
         return OpWorkload{{a, b}, {matmul(a, b, false, false, "matmul")}};
       }},
      {"batch_matmul", "B,M,N,K", "C[B,M,N] = A[B,M,K] B[B,K,N] (ONNX MatMul, rank 3)", [](const Dims &s) {
         Tensor a = placeholder({s[0], s[1], s[3]}, float32(), "A"), b = placeholder({s[0], s[3], s[2]}, float32(), "B");
         return OpWorkload{{a, b}, {batch_matmul(a, b, false, false, "batch_matmul")}};
       }},
      {"dense", "M,N,K", "Y[M,N] = X[M,K] W[N,K]^T + bias[N] (ONNX Gemm transB=1)", [](const Dims &s) {
         Tensor x = placeholder({s[0], s[2]}, float32(), "X"), w = placeholder({s[1], s[2]}, float32(), "W");
         Tensor b = placeholder({s[1]}, float32(), "bias");
         return OpWorkload{{x, w, b}, {dense(x, w, b, "dense")}};
       }},
      {"conv2d", "N,C,H,W,K,R,S[,stride[,pad]]", "NCHW / OIHW convolution (ONNX Conv)",
       [](const Dims &s) { return conv_op(s, false); }},
      {"conv2d_nchwc", "N,C,H,W,K,R,S,cb,kb[,stride[,pad]]",
       "NCHW[cb]c / OIHW[cb]i[kb]o blocked convolution (TVM conv2d_NCHWc; C, K counted in channels)",
       [](const Dims &s) {
         int64_t stride = s.size() > 9 ? s[9] : 1, pad = s.size() > 10 ? s[10] : 0, cb = s[7], kb = s[8];
         if (cb < 1 || kb < 1 || s[1] % cb || s[4] % kb)
           throw AttributeError("op 'conv2d_nchwc': blocks cb = " + std::to_string(cb) + ", kb = " + std::to_string(kb) +
                                " must divide C = " + std::to_string(s[1]) + " and K = " + std::to_string(s[4]));
         Tensor x = placeholder({s[0], s[1] / cb, s[2], s[3], cb}, float32(), "x");
         Tensor w = placeholder({s[4] / kb, s[1] / cb, s[5], s[6], cb, kb}, float32(), "w");
         return OpWorkload{{x, w}, {conv2d_nchwc(x, w, {stride, stride}, {pad, pad, pad, pad})}};
       }},
      {"depthwise_conv2d", "N,C,H,W,K,R,S[,stride[,pad]]", "NCHW depthwise convolution, groups = C (ONNX Conv)",
       [](const Dims &s) { return conv_op(s, true); }},
      {"max_pool2d", "N,C,H,W,kernel,stride[,pad]", "NCHW max pooling (ONNX MaxPool)", [](const Dims &s) {
         int64_t p = s.size() > 6 ? s[6] : 0;
         Tensor x = placeholder(take(s, 0, 4), float32(), "x");
         return OpWorkload{{x}, {max_pool2d(x, {s[4], s[4]}, {s[5], s[5]}, {p, p, p, p})}};
       }},
      {"avg_pool2d", "N,C,H,W,kernel,stride[,pad]", "NCHW average pooling (ONNX AveragePool)", [](const Dims &s) {
         int64_t p = s.size() > 6 ? s[6] : 0;
         Tensor x = placeholder(take(s, 0, 4), float32(), "x");
         return OpWorkload{{x}, {avg_pool2d(x, {s[4], s[4]}, {s[5], s[5]}, {p, p, p, p})}};
       }},
      {"global_avg_pool2d", "N,C,H,W", "NCHW -> NC11 mean (ONNX GlobalAveragePool)", [](const Dims &s) {
         Tensor x = placeholder(s, float32(), "x");
         return OpWorkload{{x}, {global_avg_pool2d(x)}};
       }},
      {"softmax", "D0,...,Dn", "softmax over the last axis (ONNX Softmax, opset 13)", [](const Dims &s) {
         Tensor x = placeholder(s, float32(), "x");
         return OpWorkload{{x}, {softmax(x, -1)}};
       }},
      {"reduce_mean", "D0,...,Dn", "mean over the last axis, keepdims (ONNX ReduceMean)", [](const Dims &s) {
         Tensor x = placeholder(s, float32(), "x");
         return OpWorkload{{x}, {reduce_mean(x, {-1}, true)}};
       }},
      {"relu", "D0,...,Dn", "max(x, 0) (ONNX Relu)", [](const Dims &s) { return unary_op(s, relu, "relu"); }},
      {"sigmoid", "D0,...,Dn", "1 / (1 + exp(-x)) (ONNX Sigmoid)", [](const Dims &s) { return unary_op(s, sigmoid, "sigmoid"); }},
      {"hard_swish", "D0,...,Dn", "x * relu6(x + 3) / 6 (ONNX HardSwish)",
       [](const Dims &s) { return unary_op(s, hard_swish, "hard_swish"); }},
      {"add", "D0,...,Dn", "elementwise a + b, same shapes (ONNX Add)", [](const Dims &s) {
         Tensor a = placeholder(s, float32(), "a"), b = placeholder(s, float32(), "b");
         return OpWorkload{{a, b}, {add(a, b, "add")}};
       }},
      {"layer_norm", "D0,...,Dn", "layer norm over the last axis with scale and bias (ONNX LayerNormalization)",
       [](const Dims &s) {
         Tensor x = placeholder(s, float32(), "x");
         Tensor g = placeholder({s.back()}, float32(), "scale"), b = placeholder({s.back()}, float32(), "bias");
         return OpWorkload{{x, g, b}, {layer_norm(x, g, b, -1, 1e-5)}};
       }},
  };
  std::sort(r.begin(), r.end(), [](const OpEntry &a, const OpEntry &b) { return a.name < b.name; });
  return r;
}

size_t min_arity(const std::string &help) {
  std::string required = help.substr(0, help.find('['));
  if (required.find("...") != std::string::npos) return 1;
  return static_cast<size_t>(std::count(required.begin(), required.end(), ',') + 1) - (required.back() == ',' ? 1 : 0);
}

// Most numbers a --shape form takes: every name, optional ones included; "D0,...,Dn" takes any count.
size_t max_arity(const std::string &help) {
  if (help.find("...") != std::string::npos) return SIZE_MAX;
  return static_cast<size_t>(std::count(help.begin(), help.end(), ',') + 1);
}

std::string join(const std::vector<int64_t> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}
}  // namespace

const std::vector<OpEntry> &op_registry() {
  static const std::vector<OpEntry> r = make_registry();
  return r;
}

OpWorkload build_op(const std::string &name, const std::vector<int64_t> &shape) {
  for (const auto &e : op_registry()) {
    if (e.name != name) continue;
    if (shape.size() < min_arity(e.shape_help) || shape.size() > max_arity(e.shape_help))
      throw UsageError("--shape " + join(shape) + ": op '" + name + "' expects --shape " + e.shape_help + ", got " +
                       std::to_string(shape.size()) + " numbers (see `tetune ops`)");
    return e.build(shape);
  }
  throw AttributeError("unknown op '" + name + "' (see `tetune ops`)");
}

std::vector<int64_t> parse_int_list(const std::string &text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      out.push_back(std::stoll(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception &) {
      throw ParseError("'" + item + "' in '" + text + "' is not an integer");
    }
  }
  if (out.empty()) throw ParseError("empty integer list");
  return out;
}

}  // namespace ops
}  // namespace tetune
