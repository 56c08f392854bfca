// Normalisation operators (float only; DTypeError otherwise).
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/**
 * ONNX BatchNormalization (inference, training_mode = 0).
 * x: [N, C, ...] (rank >= 2, channel axis 1); scale, bias, mean, var: [C]
 * (ShapeError naming the parameter otherwise; all the dtype of x).
 * y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c].
 * One stage, tag "broadcast"; attrs: op, epsilon. AttributeError for epsilon < 0.
 */
Tensor batch_norm_inference(const Tensor &x, const Tensor &scale, const Tensor &bias, const Tensor &mean,
                            const Tensor &var, double epsilon = 1e-5, const std::string &name = "batch_norm");

/**
 * ONNX LayerNormalization (opset 17): normalises over axes [axis, r) with
 * mean and (biased) variance; y = (x - mean) / sqrt(var + epsilon) * scale + bias.
 * scale (and bias, which may be an undefined Tensor()) must broadcast
 * unidirectionally to x.shape[axis:] (ShapeError otherwise).
 * Stages: "<name>.sum" = sum x (reduce), "<name>.var_sum" = sum (x - mean)^2
 * (reduce), both of shape x.shape[:axis]; <name> (tag "norm"). attrs: op, axis, epsilon.
 */
Tensor layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, int64_t axis = -1, double epsilon = 1e-5,
                  const std::string &name = "layer_norm");

/** layer_norm's output with its statistics (ONNX LayerNormalization outputs 1 and 2). */
struct LayerNormOutputs {
  Tensor y;
  /** Mean over axes [axis, r), shape x.shape[:axis] + [1] * (r - axis) ("<name>.mean", tag "elemwise"). */
  Tensor mean;
  /** 1 / sqrt(var + epsilon), same shape ("<name>.inv_std_dev", tag "elemwise"). */
  Tensor inv_std_dev;
};
/** layer_norm and its statistics; y has the same stages as layer_norm's result. */
LayerNormOutputs layer_norm_with_stats(const Tensor &x, const Tensor &scale, const Tensor &bias, int64_t axis = -1,
                                       double epsilon = 1e-5, const std::string &name = "layer_norm");

}  // namespace ops
}  // namespace tetune
