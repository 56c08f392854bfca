// Internal to relay_import's lowering: the op table type, the helpers that
// every group of lowerings shares, and one table per group file. lowering.cc
// merges the tables (an op defined twice is a programming error it reports).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "relay_import/lowering.h"

namespace tetune {
namespace relay {
namespace lowering {

using Fn = std::vector<Tensor> (*)(LowerContext &);

/** An ONNX op's lowering and its fusion pattern. */
struct OpInfo {
  Fn fn;
  OpPattern pattern;
};
using OpTable = std::map<std::string, OpInfo>;

/** A constant of dtype t (bool: v != 0). */
Expr imm(double v, DType t);
/** The loop variables as index expressions. */
std::vector<Expr> idx_of(const std::vector<Var> &i);
/** Elementwise op over input 0; UnsupportedError-style ImportError when need_float and the input is not a float. */
Tensor unop(LowerContext &c, const std::function<Expr(const Expr &)> &f, const std::string &onnx, bool need_float = true);
/** f(a, b) over the NumPy broadcast of inputs 0 and 1 (no dtype check; the result has f's dtype). */
Tensor broadcast_binary(LowerContext &c, const std::function<Expr(const Expr &, const Expr &)> &f, const std::string &onnx);
/** Binary elementwise op with NumPy broadcasting (ONNX Add, Sub, ...). */
Tensor binop(LowerContext &c, BinaryOp op, const std::string &onnx);

/**
 * Constant indices (input i) must lie in [-n, n), negative counting from the
 * end, as onnxruntime checks (a kernel clamps, which would silently read the
 * wrong element). ImportError "WHAT V (element K) is out of range [-n, n-1]
 * WHERE" naming the node otherwise; nothing to check when input i is not constant.
 */
void check_const_indices(LowerContext &c, int i, int64_t n, const std::string &what, const std::string &where = "");

// One table per group file; each returns a static table.
const OpTable &core_ops();      // lowering.cc
const OpTable &math_ops();      // lowering_math.cc: unary math, bitwise, float64-capable elementwise
const OpTable &indexing_ops();  // lowering_indexing.cc: arg/reduce variants, gather/scatter, tile, depth/space
const OpTable &loss_ops();      // lowering_loss.cc: losses, normalization extras
const OpTable &rnn_ops();       // lowering_rnn.cc: the per-step cells of unrolled RNN / LSTM / GRU
const OpTable &dynamic_ops();   // lowering_dynamic.cc: data-dependent output size (host ops)
const OpTable &select_ops();    // lowering_select.cc: TopK, LRN, windows, sequence / spatial sampling
const OpTable &resize_ops();    // lowering_resize.cc: Resize, Upsample
const OpTable &quant_ops();     // lowering_quant.cc: QuantizeLinear family, integer / QLinear products
const OpTable &integer_ops();   // lowering_integer.cc: BitShift, BitwiseAnd / Or / Xor / Not
const OpTable &spatial_ops();   // lowering_spatial.cc: GridSample, ReverseSequence, Det (M <= 3); 3-D pooling, N-D ConvTranspose helpers
const OpTable &signal_ops();    // lowering_signal.cc: DFT, STFT
const OpTable &unpool_ops();    // lowering_unpool.cc: RoiAlign, MaxUnpool
const OpTable &einsum_ops();    // lowering_einsum.cc: Einsum
const OpTable &cumsum_ops();    // lowering_cumsum.cc: CumSum
const OpTable &layout_ops();    // lowering_layout.cc: blocked-layout ops of passes/blocked_layout.h (tetune.*)

/** MaxPool (is_max) / AveragePool over NCDHW (lowering_spatial.cc); l_max_pool / l_avg_pool hand it rank-5 inputs. */
std::vector<Tensor> pool3d(LowerContext &c, bool is_max);

/**
 * ConvTranspose over any number of spatial axes, direct form (lowering_spatial.cc); l_conv_transpose
 * hands it all but 2-D, and 2-D with an output_shape past the full result (negative pads).
 */
std::vector<Tensor> conv_transpose_nd(LowerContext &c);

/**
 * Conv over 1-D inputs (as conv2d over [N, C, 1, L]) and 3-D or more (ops::conv_nd)
 * (lowering_conv.cc); l_conv hands it every input that is not 2-D.
 */
std::vector<Tensor> conv_other_rank(LowerContext &c);

/** ONNX Pow with an integer base (lowering_integer.cc); l_pow hands it integer bases. */
Tensor int_pow(LowerContext &c);

/**
 * For a graph of opset 1..6 (lowering_legacy.cc): "unsupported" ImportError for
 * node variants whose pre-opset-7 semantics the lowerings do not compute
 * (legacy broadcast at a non-trailing axis, Cast-1, Tile-1, training-mode
 * BatchNormalization-6, ...); returns for all others.
 */
void check_legacy_opset(LowerContext &c);

/**
 * Conv / ConvTranspose padding {top, left, bottom, right} from 'pads' and
 * 'auto_pad' for a 2-D kernel k, strides s, dilations d over input extents
 * in_hw (lowering.cc); "unsupported" ImportError for malformed lengths or values.
 */
std::vector<int64_t> auto_pads(LowerContext &c, const Shape &in_hw, const std::vector<int64_t> &k,
                               const std::vector<int64_t> &s, const std::vector<int64_t> &d, bool transpose,
                               const std::vector<int64_t> &outpad);

}  // namespace lowering
}  // namespace relay
}  // namespace tetune

#define LOWER(NAME) std::vector<Tensor> NAME(LowerContext &c)
