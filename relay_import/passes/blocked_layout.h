// Layout selection: convolution chains in the blocked layout NCHW[b]c
// (TVM's AlterOpLayout to conv2d_NCHWc; onnxruntime's NCHWc transformer).
//
// A float32 2-D Conv with explicit pads and C, K divisible by the block b,
// or padded to whole blocks with at most a third of them padding (24 -> 32
// channels; onnxruntime pads likewise), runs over its input in [N, C/b, H, W, b]
// (C/b rounded up; the padding channels are 0 after a conv, finite after the
// ops moved below, and their weights are 0):
//  * group 1, dilation 1: tetune.ConvNCHWc, its weight re-laid out as
//    OIHW[b]i[b]o ([K/b, C/b, R, S, b, b]): once here when constant, else by
//    tetune.ToBlockedWeight where the graph computes it (a folded channel scale);
//    an NCHW input of fewer than 8 channels (an image's 1, 3 or 4)
//    is read as it is, [N, C, H, W, 1] (a Reshape: no ToBlocked), weight
//    [K/b, C, R, S, 1, b] (onnxruntime's NCHWc convs read such inputs NCHW too);
//  * depthwise (group = C = K), constant weight: tetune.DepthwiseConvNCHWc,
//    weight [C/b, R, S, b];
//  * other groups, constant weight, dilation 1: a tetune.ConvNCHWc of groups
//    of whole blocks (attribute groups), either the conv's own groups when
//    each fills whole blocks, or one group per block where groups of equal
//    width divide it (ResNeXt's 32 groups of 4 channels: 4 to a block, the
//    weight block-diagonal, b/4 times the multiplies of the grouped conv, all
//    of them vector FMAs);
// Its output goes back to NCHW through tetune.ToPlain, and the pass then
// moves that transform down the graph:
//  * an elementwise op (activation, residual Add, Mul, Clip...) whose data
//    inputs come out of ToPlain runs on the blocked tensors instead; a
//    per-channel operand ([C,1,1], [1,C,1,1], [N,C,1,1]) is re-laid out as
//    [1 or N, C/b, 1, 1, b] (a constant here, a value by tetune.ToBlocked);
//  * MaxPool, AveragePool, GlobalAveragePool, Concat along the channels
//    (of channels that fill their blocks) and Pad of H and W only run blocked
//    as well; Div runs on padded blocks only by a constant divisor (padded with 1);
//  * a Concat of padded blocks or of blocks of other widths, ShuffleNet's
//    channel shuffle (Reshape to [N, g, C/g, H, W], Transpose (0, 2, 1, 3, 4),
//    Reshape back) and a Slice of the channels alone become
//    tetune.ChannelGatherNCHWc, each lane reading its channel; a gather of a
//    gather's (or a blocked Concat's) result is composed into one that reads
//    the tensors the chain started from, so a ShuffleNetV2 unit's Concat,
//    shuffle and two Slices are two gathers of its two branches;
//  * ToBlocked(ToPlain(z)) is z.
// A transform stays only where a consumer needs NCHW (a pool, a reshape, a
// graph output), so a ResNet's chain of convs, bias, ReLU and residual adds
// runs blocked from its first block to its global pool. A blocked 3x3 conv of
// 256 channels at 14x14 ran 15% faster than the NCHW one, a 1x1 of 512 -> 2048
// at 7x7 34% faster (the reduction reads 16 contiguous channels per tap).
// The lowering of the tetune.* ops is relay_import/lowering_layout.cc.
#pragma once

#include <string>

#include "codegen/kernel.h"
#include "relay_import/graph.h"

namespace tetune {
namespace relay {

struct BlockedLayoutStats {
  int convs = 0;       // Convs now tetune.ConvNCHWc or tetune.DepthwiseConvNCHWc
  int moved = 0;       // other nodes now run on blocked tensors
  int transforms = 0;  // ToBlocked / ToPlain nodes left in the graph (kernels)
  int views = 0;       // transforms of [N, C, 1, 1] values: Reshapes, no kernel (the order of elements is the same)
};

/**
 * The channel block for float32 on target: Target::vector_unit()'s lanes (16
 * with AVX-512, 8 with AVX2) where the CPU has FMA; 0 (no blocked layout) on
 * GPU targets and on CPUs without it (SSE, plain AVX). One block is one
 * vector register of fp32 lanes.
 */
int channel_block(const Target &target);

/**
 * Rewrites g's eligible convolution chains to NCHW[block]c (see above) and
 * compacts g. block < 2 leaves g unchanged. The graph computes the same
 * outputs, with the same names, shapes and dtypes.
 */
BlockedLayoutStats convert_to_blocked_layout(Graph &g, int block);

}  // namespace relay
}  // namespace tetune
