// Winograd convolution F(m x m, 3 x 3) in the blocked layout of conv2d_nchwc
// (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR
// 2016, section 4): each m x m output tile of a 3x3, stride-1 conv is
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
// over an alpha x alpha input tile d (alpha = m + 2), so the multiplies per
// output fall from 9 C to alpha^2 / m^2 C (F(2x2): 4 C, F(4x4): 2.25 C).
// Three stages, each its own kernel in a graph (relay_import/passes/winograd.h):
//   winograd_input_nchwc   x [N, C/b, H, W, b]        -> V [alpha^2, C/b, P, b]
//   winograd_gemm_nchwc    V, U [alpha^2, K/kb, C/b, b, kb] -> M [alpha^2, K/kb, P, kb]
//   winograd_output_nchwc  M                            -> y [N, K/kb, OH, OW, kb]
// with P = N * TH * TW tiles, TH = ceil(OH / m), TW = ceil(OW / m). The
// weight transform U = G g G^T is done once, at compile time
// (winograd_weight). Float32 or float64; the transforms are exact in real
// arithmetic, and in fp32 the outputs differ from the direct conv by rounding
// that grows with m (F(4x4): about 1e-5 relative on unit-scale data).
// The transforms pick their coefficients by the position in a tile (select
// chains of the point e, of h % m and w % m): each names those tiles in the
// attribute kUnrollTilesAttr (te/tensor.h), so that a schedule unrolls them
// and the picks fold to constants.
// An infinite input element makes its whole tile NaN (inf - inf in B^T d B),
// where the direct conv keeps NaN to the outputs whose window holds it.
#pragma once

#include <string>
#include <vector>

#include "base/ndarray.h"
#include "te/tensor.h"

namespace tetune {
namespace ops {

/** The matrices of F(m x m, 3 x 3) at the points 0, +-1 (and +-2 for m = 4) and infinity (Lavin and Gray, section 5). */
struct WinogradMatrices {
  int m = 0, alpha = 0;                  // output tile m x m, input tile alpha x alpha (alpha = m + 2)
  std::vector<std::vector<double>> BT;   // alpha x alpha: input transform
  std::vector<std::vector<double>> G;    // alpha x 3: weight transform
  std::vector<std::vector<double>> AT;   // m x alpha: output transform
};

/** Tiles of m outputs along an extent of `extent` outputs: ceil(extent / m) (TH, TW above). */
inline int64_t winograd_tiles(int64_t extent, int m) { return (extent + m - 1) / m; }

/** F(m x m, 3 x 3) for m = 2 or 4; AttributeError for other m. */
const WinogradMatrices &winograd_matrices(int m);

/**
 * The transformed weight U [alpha^2, K/kb, C/cb, cb, kb] (float32) of a
 * blocked conv weight w [K/kb, C/cb, 3, 3, cb, kb] (OIHW[cb]i[kb]o, float32):
 *   U[e1 * alpha + e2, k, c, ci, kb] = (G w[k, c, :, :, ci, kb] G^T)[e1, e2]
 * computed in double and rounded once. ShapeError unless w is rank 6 with a
 * 3x3 window; DTypeError unless it is float32; AttributeError for m not 2 or 4.
 */
NDArray winograd_weight(const NDArray &w, int m);

/**
 * Input transform: V[e1 * alpha + e2, c, p, cb] = (B^T d B)[e1, e2] with d the
 * alpha x alpha window of the zero-padded x at rows th * m - top, columns
 * tw * m - left of tile p = (n * TH + th) * TW + tw. pads {top, left, bottom,
 * right} are the conv's; the input is padded further with zeros as far as the
 * last tile reads. Stages: "<name>.pad" (tag "injective"), <name> (tag
 * "winograd_input"; axes e, c, p, cb). ShapeError unless x is rank 5 and the
 * padded plane holds a 3x3 window; AttributeError for m not 2 or 4 or pads < 0.
 */
Tensor winograd_input_nchwc(const Tensor &x, int m, const std::vector<int64_t> &pads,
                            const std::string &name = "winograd_input");

/**
 * The batched product of the transformed tiles and weights:
 *   M[e, k, p, kb] = sum_{rco, rci} V[e, rco, p, rci] * U[e, k, rco, rci, kb]
 * one GEMM of P x C by C x K per transform point e (tag "winograd_gemm_nchwc";
 * axes e, k, p, kb; reduce axes rco, rci). ShapeError when the points or
 * channel blocks of V and U disagree; DTypeError when their dtypes do.
 */
Tensor winograd_gemm_nchwc(const Tensor &v, const Tensor &u, const std::string &name = "winograd_gemm");

/**
 * Output transform: y[n, k, h, w, kb] = (A^T M_tile A)[h % m, w % m] for the
 * tile p = (n * TH + h / m) * TW + w / m of M [alpha^2, K/kb, N * TH * TW, kb],
 * cropped to OH x OW (tag "winograd_output"; axes n, k, h, w, kb). ShapeError
 * unless M has alpha^2 points and N * ceil(OH/m) * ceil(OW/m) tiles.
 */
Tensor winograd_output_nchwc(const Tensor &mt, int m, int64_t N, int64_t OH, int64_t OW,
                             const std::string &name = "winograd_output");

}  // namespace ops
}  // namespace tetune
