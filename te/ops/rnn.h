// One time step of the ONNX recurrent ops (RNN, LSTM, GRU) as TE computes.
//
// The importer unrolls a recurrent node into one cell per step (see
// relay_import/lowering_rnn.cc): the input projection X_t W^T of all steps is
// one MatMul, and each step's cell takes its slice `xw` (the projection plus
// the biases that sit outside a product). Every step's cell is the same compute
// on same-shaped placeholders, so all steps share one workload key and one
// tuned kernel.
//
// Common shapes: B batch, H hidden size, G gates (1 RNN, 4 LSTM, 3 GRU);
// xw [B, G*H], h (previous hidden state) [B, H], rt (recurrence weights of
// one direction, transposed from ONNX's [G*H, H]) [H, G*H]: the gate vectors
// of h rt are contiguous rows of rt, where ONNX's layout would make each
// vector a gather of stride H (the importer transposes the constant R once).
// All tensors share one float dtype.
// Errors: ShapeError for mismatched shapes, DTypeError for non-float or mixed
// dtypes, AttributeError for an unknown activation.
// Source: ONNX operator spec, sections RNN, LSTM, GRU (opsets 7..22).
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/** An activation of the ONNX recurrent ops with its alpha / beta (unused ones are ignored). */
struct RnnActivation {
  std::string name;  // "Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu",
                     // "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"
  double alpha = 0, beta = 0;
};

/**
 * The activation `name` with the ONNX defaults for alpha / beta (LeakyRelu 0.01,
 * ThresholdedRelu 1, HardSigmoid 0.2 / 0.5, Elu 1, ScaledTanh / Affine 1 / 0)
 * where has_alpha / has_beta are false. Case-insensitive name; AttributeError
 * for an unknown one.
 */
RnnActivation rnn_activation(const std::string &name, bool has_alpha = false, double alpha = 0, bool has_beta = false,
                             double beta = 0);

/** f(x) for one activation. */
Expr apply_rnn_activation(const RnnActivation &f, const Expr &x);

/**
 * RNN step: H_t = f(clip(xw + h rt)). `clip` <= 0 or infinite: no clipping,
 * otherwise gate inputs are clamped to [-clip, clip]. Returns [B, H].
 */
Tensor rnn_cell(const Tensor &xw, const Tensor &h, const Tensor &rt, const RnnActivation &f, double clip,
                const std::string &name = "rnn_cell");

/**
 * LSTM step, gates in ONNX order i, o, f, c: with g = xw + h rt ([B, 4H]),
 *   i = f(g_i + P_i C_{t-1}), f = f(g_f + P_f C_{t-1}), c~ = g(g_c),
 *   C_t = f C_{t-1} + i c~, o = f(g_o + P_o C_t), H_t = o h(C_t).
 * c is the previous cell state [B, H]; p the peepholes [3H] in order i, o, f,
 * or undefined for none. acts = {f, g, h}. Returns {H_t, C_t}, both [B, H].
 */
std::vector<Tensor> lstm_cell(const Tensor &xw, const Tensor &h, const Tensor &c, const Tensor &rt, const Tensor &p,
                              const std::vector<RnnActivation> &acts, double clip, const std::string &name = "lstm_cell");

/**
 * GRU step, gates in ONNX order z, r, h: with xw = X W^T + Wb (+ Rb_z, Rb_r,
 * and Rb_h when linear_before_reset is false),
 *   z = f(xw_z + h rt_z), r = f(xw_r + h rt_r),
 *   h~ = g(xw_h + (r . h) rt_h)               (linear_before_reset false)
 *   h~ = g(xw_h + r . (h rt_h + Rb_h))         (linear_before_reset true),
 *   H_t = (1 - z) h~ + z h.
 * rb_h [H] is required exactly when linear_before_reset. acts = {f, g}.
 * Returns [B, H].
 */
Tensor gru_cell(const Tensor &xw, const Tensor &h, const Tensor &rt, const Tensor &rb_h, const std::vector<RnnActivation> &acts,
                double clip, bool linear_before_reset, const std::string &name = "gru_cell");

}  // namespace ops
}  // namespace tetune
