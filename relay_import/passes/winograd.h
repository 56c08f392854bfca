// Winograd F(2x2, 3x3) for blocked 3x3 convolutions (Lavin and Gray, CVPR
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
// Why F(2x2) and this threshold: alone on one Zen 4 core, ResNet-50's 3x3
// convs ran 0.53-0.85x the direct blocked conv's time as F(2x2), and F(4x4)
// was no faster (its transforms cost more) while rounding 10x more; the GEMM
// does K multiply-adds per transformed element, the transforms a few, so
// narrow convs gain little (bench/RESULTS.md, 2026-11-26 third session).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "relay_import/graph.h"

namespace tetune {
namespace relay {

/** The output tile m of F(m x m, 3 x 3) the pass uses (above: why 2). */
constexpr int kWinogradTile = 2;
/** Fewer input or output channels than this keep the direct conv. */
constexpr int64_t kMinWinogradChannels = 32;

/** The names of the values a conv becomes: V, M and y above (y keeps the name of the conv's output value). */
struct WinogradValueNames {
  std::string input, product, output;
};
WinogradValueNames winograd_value_names(const std::string &conv_output);

/**
 * Rewrites g's eligible convs (above) to F(m x m, 3 x 3), m = kWinogradTile,
 * and compacts g; returns the output value names of the convs it rewrote, in
 * graph order. A conv whose output value's name is in keep_direct stays
 * direct (relay_import/conv_forms.h: the faster form by its records).
 */
std::vector<std::string> convert_convs_to_winograd(Graph &g, const std::set<std::string> &keep_direct = {});

}  // namespace relay
}  // namespace tetune
