// Data-dependent ops (relay_import/host_ops.h): NonZero, Compress, Unique,
// NonMaxSuppression. The executor runs them on the host; these lowerings only
// give shape inference each output's upper bound and dtype (the returned
// tensors are never compiled: fusion makes a FusedGroup::Host of the node and
// constant folding calls the host op).
#include <algorithm>

#include "relay_import/lowering_internal.h"
#include "te/ops/common.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

// A tensor of the bound shape for shape inference only.
Tensor bound(LowerContext &c, const Shape &s, DType t, const std::string &suffix) {
  for (auto d : s)
    if (d < 1) c.unsupported("zero-size output " + shape_str(s) + " (unsupported: zero-size tensors)");
  return compute(s, [&](const std::vector<Var> &) { return imm(0, t); }, c.name() + suffix, "host_bound",
                 ops::default_axis_names(static_cast<int>(s.size())));
}

int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

int axis_attr(LowerContext &c, int rank) {
  int64_t a = c.node().attr_i("axis", 0);
  if (a < -rank || a >= rank) c.attr_fail("attribute 'axis' " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(a < 0 ? a + rank : a);
}

LOWER(l_non_zero) {
  Tensor x = c.in(0);
  return {bound(c, {std::max(1, x.ndim()), numel(x.shape())}, int64(), "")};
}

LOWER(l_compress) {
  Tensor x = c.in(0);
  Tensor cond = c.in_rank(1, 1, "condition");
  if (!cond.dtype().is_bool()) c.fail("condition must be bool, it is " + cond.dtype().str());
  bool has_axis = c.node().has_attr("axis");
  int a = has_axis ? axis_attr(c, x.ndim()) : 0;
  Shape s = has_axis ? x.shape() : Shape{numel(x.shape())};
  int64_t n = std::min(s[a], cond.shape()[0]);
  if (const NDArray *k = c.cdata(1)) {  // a constant condition gives the exact extent
    n = 0;
    for (int64_t i = 0; i < std::min(k->size(), s[a]); i++) n += k->get(i) != 0;
  }
  s[a] = n;
  return {bound(c, s, x.dtype(), "")};
}

LOWER(l_unique) {
  Tensor x = c.in(0);
  bool has_axis = c.node().has_attr("axis");
  int a = has_axis ? axis_attr(c, x.ndim()) : 0;
  Shape s = has_axis ? x.shape() : Shape{numel(x.shape())};
  int64_t n = s[a];
  return {bound(c, s, x.dtype(), ""), bound(c, {n}, int64(), ".indices"), bound(c, {n}, int64(), ".inverse"),
          bound(c, {n}, int64(), ".counts")};
}

LOWER(l_nms) {
  Tensor boxes = c.in_rank(0, 3, "boxes"), scores = c.in_rank(1, 3, "scores");
  int64_t B = boxes.shape()[0], N = boxes.shape()[1], C = scores.shape()[1];
  if (boxes.shape()[2] != 4) c.shape_fail("boxes " + shape_str(boxes.shape()) + " must be [batches, boxes, 4]");
  if (scores.shape()[0] != B || scores.shape()[2] != N)
    c.shape_fail("scores " + shape_str(scores.shape()) + " must be [batches, classes, boxes] for boxes " + shape_str(boxes.shape()));
  if (c.node().attr_i("center_point_box", 0) > 1) c.attr_fail("attribute 'center_point_box' must be 0 or 1");
  int64_t per_class = N;
  if (c.has(2) && c.cdata(2)) {
    auto m = c.const_ints(2, "max_output_boxes_per_class");
    if (m.size() != 1) c.shape_fail("max_output_boxes_per_class must hold one value");
    per_class = std::min(N, m[0]);
    if (per_class < 1) c.unsupported("max_output_boxes_per_class " + std::to_string(m[0]) + " (zero-size output)");
  } else if (!c.has(2)) {
    c.unsupported("absent max_output_boxes_per_class (ONNX: no box is selected; zero-size output)");
  }
  return {bound(c, {B * C * per_class, 3}, int64(), "")};
}

}  // namespace

const OpTable &dynamic_ops() {
  static const OpTable t = {
      {"NonZero", {l_non_zero, OpPattern::Host}},
      {"Compress", {l_compress, OpPattern::Host}},
      {"Unique", {l_unique, OpPattern::Host}},
      {"NonMaxSuppression", {l_nms, OpPattern::Host}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
