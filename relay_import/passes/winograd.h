// Winograd F(2x2, 3x3) and F(4x4, 3x3) for blocked 3x3 convolutions (Lavin and Gray, CVPR
// 2016; te/ops/winograd.h for the algorithm and its rounding).
//
// Each tetune.ConvNCHWc (passes/blocked_layout.h) with a constant 3x3 weight,
// stride 1, at least kMinWinogradChannels input and output channels and an
// output plane of at least 2x2 becomes three nodes, each its own kernel:
//   tetune.WinogradInput   x [N, C/ib, H, W, ib]; attributes m, pads (4)
//                          -> V [(m+2)^2, C/ib, N*TH*TW, ib]
//   tetune.WinogradGemm    V, U [(m+2)^2, K/ob, C/ib, ib, ob] (a constant: the
//                          weight transformed here) -> M [(m+2)^2, K/ob, N*TH*TW, ob]
//   tetune.WinogradOutput  M, optional bias [K]; attributes m, output_hw (OH, OW)
//                          -> y [N, K/ob, OH, OW, ob]
// with TH = ceil(OH/m), TW = ceil(OW/m). The output keeps the conv's value,
// so its epilogue (bias, activation, residual add) fuses into the output
// transform's kernel. The lowering is relay_import/lowering_winograd.cc.
//
// Which tile: F(4x4) does 2.25 multiplies per output and channel against
// F(2x2)'s 4, but its tiles are 4x larger, so a small plane leaves its GEMM
// few rows (P tiles) and computes more padding (7x7 -> 8x8), and its
// transformed weight is 36/16 times F(2x2)'s. The GEMM of F(m) does
// 2 alpha^2 P C K flops (alpha = m + 2) on a weight of 4 alpha^2 C K bytes,
// which a model run reads from memory (ResNet-50's transformed weights are
// 90 MB), so it takes about max(flops / peak, bytes / bandwidth) (the
// roofline: Williams, Waterman and Patterson, CACM 2009). The machine balance
// peak / bandwidth grows with the vector width while a core's memory
// bandwidth does not: about the lane count in flops per byte (424 GFLOP/s
// against 27 GB/s at 2 threads on the 16-lane Xeon of bench/RESULTS.md,
// 2026-12-06 thirty-fifth session). F(4x4) is used where its GEMM has at
// least kMinWinogradTileRows tile rows and the smaller roofline time, else
// F(2x2).
// Its transforms run as cheap as F(2x2)'s once their tiles are unrolled
// (kUnrollTilesAttr); its rounding is about 10x F(2x2)'s (te/ops/winograd.h).
// Narrow convs gain little: the GEMM does K multiply-adds per transformed
// element, the transforms a few (bench/RESULTS.md, 2026-11-26 third session
// and 2026-12-05).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** F(4x4) needs at least this many tiles N * ceil(OH/4) * ceil(OW/4) (above). */
constexpr int64_t kMinWinogradTileRows = 16;
/**
 * The output tile m of F(m x m, 3 x 3), 4 or 2 (above), for N images of OH x OW outputs in a channel block
 * of `lanes` fp32 lanes (one vector register: 16 with AVX-512, 8 with AVX2; passes/blocked_layout.h).
 */
int winograd_tile(int64_t N, int64_t OH, int64_t OW, int64_t lanes);
/** Fewer input or output channels than this keep the direct conv. */
constexpr int64_t kMinWinogradChannels = 32;

/** The names of the values a conv becomes: V, M and y above (y keeps the name of the conv's output value). */
struct WinogradValueNames {
  std::string input, product, output;
};
WinogradValueNames winograd_value_names(const std::string &conv_output);

/**
 * Rewrites g's eligible convs (above) to F(m x m, 3 x 3), m = winograd_tile,
 * and compacts g; returns the output value names of the convs it rewrote, in
 * graph order. A conv whose output value's name is in keep_direct stays
 * direct (relay_import/conv_forms.h: the faster form by its records).
 */
std::vector<std::string> convert_convs_to_winograd(Graph &g, const std::set<std::string> &keep_direct = {});

}  // namespace relay
}  // namespace tetune
