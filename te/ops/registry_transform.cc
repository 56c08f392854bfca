// Registry entries: data movement and resampling (te/ops/transform.h, resize.h,
// grid_sample.h, roi_align.h, reverse_sequence.h). Integer inputs (indices,
// lengths) are int64; out-of-range values are clamped by the ops.
#include "base/errors.h"
#include "te/ops/grid_sample.h"
#include "te/ops/registry_families.h"
#include "te/ops/resize.h"
#include "te/ops/reverse_sequence.h"
#include "te/ops/roi_align.h"
#include "te/ops/transform.h"

namespace tetune {
namespace ops {
namespace registry_detail {

namespace {

OpEntry resize_entry(const char *name, const char *mode, const std::string &description) {
  return {name, "N,C,H,W,OH,OW", description, "1,4,6,6,12,9", [name, mode](const Dims &s) {
            Tensor x = input(take(s, 0, 4), "x");
            return OpWorkload{{x}, {resize(x, {s[4], s[5]}, mode, "half_pixel", "round_prefer_floor", name)}};
          }};
}

OpEntry pad_entry(const char *name, const char *mode, const std::string &description) {
  return {name, "N,C,H,W,pad", description, "1,4,6,6,2", [name, mode](const Dims &s) {
            Tensor x = input(take(s, 0, 4), "x");
            int64_t p = s[4];
            return OpWorkload{{x}, {pad(x, {0, 0, p, p, 0, 0, p, p}, mode, 0.0, name)}};
          }};
}

}  // namespace

std::vector<OpEntry> transform_entries() {
  return {
      {"transpose", "D0,...,Dn", "axes reversed, [Dn,...,D0] (ONNX Transpose, default perm)", "6,8,10",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {transpose(x, {}, "transpose")}};
       }},
      {"to_blocked", "N,C,H,W,b", "NCHW -> NCHW[b]c, [N, C/b, H, W, b] (the layout transform into a chain of ONNX Convs run blocked)", "1,16,6,6,8",
       [](const Dims &s) {
         Tensor x = input(take(s, 0, 4), "x");
         return OpWorkload{{x}, {to_blocked(x, s[4], "to_blocked")}};
       }},
      {"to_plain", "N,C,H,W,b", "NCHW[b]c -> NCHW: x [N, C/b, H, W, b] -> [N, C, H, W] (the layout transform out of a chain of ONNX Convs run blocked)",
       "1,16,6,6,8",
       [](const Dims &s) {
         if (s[4] < 1 || s[1] % s[4]) throw AttributeError("to_plain: block " + std::to_string(s[4]) + " does not divide C = " + std::to_string(s[1]));
         Tensor x = input({s[0], s[1] / s[4], s[2], s[3], s[4]}, "x");
         return OpWorkload{{x}, {to_plain(x, 0, "to_plain")}};
       }},
      {"concat", "D0,...,Dn", "a and b joined along the last axis (ONNX Concat, axis -1)", "6,20",
       [](const Dims &s) {
         Tensor a = input(s, "a"), b = input(s, "b");
         return OpWorkload{{a, b}, {concat({a, b}, -1, "concat")}};
       }},
      {"split", "D0,...,Dn", "the last axis cut into two halves, two outputs (ONNX Split, num_outputs 2)", "6,20",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, split(x, -1, {}, 2, "split")};
       }},
      {"slice", "D0,...,Dn", "x[1:-1, ..., 1:-1], every extent at least 3 (ONNX Slice, starts 1, ends -1)", "6,20",
       [](const Dims &s) {
         Tensor x = input(s, "x");
         return OpWorkload{{x}, {slice(x, Dims(s.size(), 1), Dims(s.size(), -1), {}, {}, "slice")}};
       }},
      {"expand", "D0,...,Dn", "x [Dn] broadcast to [D0,...,Dn] (ONNX Expand)", "6,20",
       [](const Dims &s) {
         Tensor x = input({s.back()}, "x");
         return OpWorkload{{x}, {expand(x, s, "expand")}};
       }},
      pad_entry("pad", "constant", "NCHW zero-padded by `pad` on each side of H and W (ONNX Pad, mode constant)"),
      pad_entry("pad_reflect", "reflect",
                "NCHW mirrored by `pad` < H, W on each side of H and W (ONNX Pad, mode reflect)"),
      {"gather", "N,D,M", "rows of data [N,D] at int64 indices [M] -> [M,D] (ONNX Gather, axis 0: embeddings)",
       "10,8,6",
       [](const Dims &s) {
         Tensor data = input({s[0], s[1]}, "data"), idx = placeholder({s[2]}, int64(), "indices");
         return OpWorkload{{data, idx}, {gather(data, idx, 0, "gather")}};
       }},
      resize_entry("resize_nearest", "nearest", "NCHW -> [N,C,OH,OW], nearest, half_pixel (ONNX Resize)"),
      resize_entry("resize_linear", "linear", "NCHW -> [N,C,OH,OW], bilinear, half_pixel (ONNX Resize)"),
      resize_entry("resize_cubic", "cubic", "NCHW -> [N,C,OH,OW], bicubic a = -0.75, half_pixel (ONNX Resize)"),
      {"grid_sample", "N,C,H,W,OH,OW",
       "NCHW sampled bilinearly at grid [N,OH,OW,2] in [-1, 1], zeros outside (ONNX GridSample)", "1,4,6,6,5,5",
       [](const Dims &s) {
         Tensor x = input(take(s, 0, 4), "x"), grid = input({s[0], s[4], s[5], 2}, "grid");
         return OpWorkload{{x, grid}, {grid_sample(x, grid, "linear", "zeros", false, "grid_sample")}};
       }},
      {"roi_align", "N,C,H,W,R,OH,OW",
       "NCHW averaged over R boxes rois [R,4] (x1,y1,x2,y2) of images batch_indices [R] -> [R,C,OH,OW] "
       "(ONNX RoiAlign, half_pixel, adaptive sampling)",
       "1,4,8,8,3,2,2",
       [](const Dims &s) {
         Tensor x = input(take(s, 0, 4), "x"), rois = input({s[4], 4}, "rois");
         Tensor idx = placeholder({s[4]}, int64(), "batch_indices");
         return OpWorkload{{x, rois, idx}, {roi_align(x, rois, idx, "avg", s[5], s[6])}};
       }},
      {"reverse_sequence", "T,B,D",
       "x [T,B,D] with the first lens[b] steps of each batch reversed, int64 lens [B] (ONNX ReverseSequence)",
       "6,3,4",
       [](const Dims &s) {
         Tensor x = input(s, "x"), lens = placeholder({s[1]}, int64(), "lens");
         return OpWorkload{{x, lens}, {reverse_sequence(x, lens, 1, 0)}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
