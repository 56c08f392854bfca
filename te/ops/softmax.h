// Softmax and log-softmax along one axis (ONNX Softmax / LogSoftmax, opset 13).
//
// Layout: any rank; axis in [-r, r) (AttributeError otherwise). Float only
// (DTypeError). Numerically stable: the maximum along the axis is subtracted
// before exponentiating. Stages:
//   softmax:     "<name>.max" (reduce), "<name>.exp" (broadcast), "<name>.sum" (reduce), <name> = exp * (1 / sum) (tag "softmax")
//   log_softmax: "<name>.max" (reduce), "<name>.sum" = sum exp(x - max) (reduce), <name> = x - max - log(sum) (tag "softmax")
// The reduce stages drop the axis (shape without it). attrs: op, axis.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor softmax(const Tensor &x, int64_t axis = -1, const std::string &name = "softmax");
Tensor log_softmax(const Tensor &x, int64_t axis = -1, const std::string &name = "log_softmax");

}  // namespace ops
}  // namespace tetune
