// Data-movement operators (all tagged "injective"; attrs["op"] = ONNX op).
//
// Layout: any rank, row-major. Dtypes: outputs keep the input dtype. Axes may be
// negative (counted from the end); an axis out of range raises AttributeError
// naming the op and attribute. A result with a zero-extent axis raises
// ShapeError (tensors cannot be empty).
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

/** ONNX Concat: joins tensors along axis; all other extents and dtypes must agree (ShapeError / DTypeError). */
Tensor concat(const std::vector<Tensor> &tensors, int64_t axis, const std::string &name = "concat");

/**
 * ONNX Split: sizes along axis (empty = `num_outputs` equal parts, the last one
 * smaller when the extent does not divide, as ONNX-18). Outputs are named
 * "<name>.0", "<name>.1", ... AttributeError when sizes do not sum to the extent.
 */
std::vector<Tensor> split(const Tensor &x, int64_t axis, const std::vector<int64_t> &sizes, int num_outputs = 2,
                          const std::string &name = "split");

/** One axis of an ONNX Slice after clamping: elements start, start + step, ... (length of them; 0 = empty). */
struct SliceRange {
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;
};

/**
 * ONNX Slice's range along an axis of extent dim: negative start / end count
 * from the end, then both are clamped to [0, dim] for a positive step and to
 * [-1, dim - 1] for a negative one; length = ceil((end - start) / step), at
 * least 0. step must be non-zero (the caller checks).
 */
SliceRange slice_range(int64_t dim, int64_t start, int64_t end, int64_t step);

/**
 * ONNX Slice: for each listed axis (default: 0..n-1) take start:end:step
 * (default step 1; step 0 raises AttributeError). Negative starts/ends count
 * from the end; they are clamped to [0, dim] for positive steps and
 * [-1, dim-1] for negative steps. Output extent ceil((end-start)/step).
 */
Tensor slice(const Tensor &x, const std::vector<int64_t> &starts, const std::vector<int64_t> &ends,
             const std::vector<int64_t> &axes = {}, const std::vector<int64_t> &steps = {},
             const std::string &name = "slice");

/** ONNX Transpose: out axis i is input axis perm[i] (empty perm = reverse). AttributeError for a non-permutation. */
Tensor transpose(const Tensor &x, const std::vector<int64_t> &perm = {}, const std::string &name = "transpose");

/**
 * NCHW -> NCHW[b]c (TVM's layout_transform "NCHW" -> "NCHW{b}c"): x [N, C, H, W]
 * -> [N, ceil(C/b), H, W, b], y[n, c, h, w, i] = x[n, c * b + i, h, w], and 0
 * for the channels c * b + i >= C that pad the last block (onnxruntime's NCHWc
 * pads channels likewise). ShapeError when x is not rank 4, AttributeError when b < 1.
 */
Tensor to_blocked(const Tensor &x, int64_t block, const std::string &name = "to_blocked");

/** Whether C channels end in the last of `blocks` blocks of b (the padding is less than one block). */
inline bool channels_end_in_last_block(int64_t C, int64_t blocks, int64_t b) {
  return C >= 1 && C <= blocks * b && C > (blocks - 1) * b;
}

/**
 * NCHW[b]c -> NCHW, to_blocked's inverse: x [N, ceil(C/b), H, W, b] -> [N, C, H, W],
 * dropping the padding channels; channels = C, 0 for every channel x holds.
 * ShapeError when x is not rank 5, AttributeError when C does not end in x's last block.
 */
Tensor to_plain(const Tensor &x, int64_t channels = 0, const std::string &name = "to_plain");

/**
 * Channels gathered from NCHW[b]c tensors in one pass, so that ShuffleNet's
 * Concat, channel shuffle and channel Slice run blocked (Ma et al.,
 * "ShuffleNet V2", ECCV 2018: a unit splits its channels in two,
 * concatenates its branches and shuffles them). xs[k] [N, ceil(C_k/b_k), H, W,
 * b_k] holds channels[k] = C_k channels in blocks of its own b_k; X is their
 * channels in order (C = sum of C_k); S[c] = X[(c % groups) * (C / groups) +
 * c / groups], the channel shuffle of `groups` groups (groups = 1: S = X).
 * Output [N, ceil(count/block), H, W, block]: channel c < count is S[start + c],
 * the padding channels past count are 0. Lanes gather across blocks wherever
 * a block boundary of X does not fall on one of the output.
 * ShapeError when an input is not rank 5 or differs from xs[0] in N, H, W or
 * dtype; AttributeError when channels[k] does not end in the last block of
 * xs[k], groups does not divide C, [start, start + count) is not inside
 * [0, C), or block < 1.
 */
Tensor blocked_channel_gather(const std::vector<Tensor> &xs, const std::vector<int64_t> &channels, int64_t groups,
                              int64_t start, int64_t count, int64_t block, const std::string &name = "channel_gather");

/**
 * ONNX Reshape: 0 copies the input extent at that position (allowzero=0), one
 * -1 is inferred. ShapeError when element counts differ; AttributeError for
 * two -1s or a value < -1.
 */
Tensor reshape(const Tensor &x, const Shape &new_shape, const std::string &name = "reshape");

/** ONNX Flatten: [prod(shape[:axis]), prod(shape[axis:])], axis in [-r, r]. */
Tensor flatten(const Tensor &x, int64_t axis = 1, const std::string &name = "flatten");

/** ONNX Squeeze: removes the listed extent-1 axes (empty = all extent-1 axes); ShapeError if an axis is not 1. */
Tensor squeeze(const Tensor &x, const std::vector<int64_t> &axes = {}, const std::string &name = "squeeze");

/** ONNX Unsqueeze (opset 13): inserts extent-1 axes; axes index the output (rank + len(axes)). */
Tensor unsqueeze(const Tensor &x, const std::vector<int64_t> &axes, const std::string &name = "unsqueeze");

/**
 * ONNX Pad: pads = [x1_begin, x2_begin, ..., x1_end, x2_end, ...] (2*rank
 * values; negative values crop). mode "constant" (fill `value`), "edge"
 * (repeat the border) or "reflect" (mirror without repeating the border;
 * needs pad < extent). AttributeError for a bad mode or pad.
 */
Tensor pad(const Tensor &x, const std::vector<int64_t> &pads, const std::string &mode = "constant", double value = 0.0,
           const std::string &name = "pad");

/**
 * ONNX Gather: out shape = data.shape[:axis] + indices.shape + data.shape[axis+1:].
 * indices int32 / int64 (DTypeError otherwise); a negative index i means
 * i + extent. Indices are clamped into range (out-of-range indices are
 * undefined in ONNX; clamping keeps compiled code in bounds).
 */
Tensor gather(const Tensor &data, const Tensor &indices, int64_t axis = 0, const std::string &name = "gather");

/** ONNX Expand: broadcasts x to broadcast_shapes(x.shape, shape). */
Tensor expand(const Tensor &x, const Shape &shape, const std::string &name = "expand");

}  // namespace ops
}  // namespace tetune
