// Lowering of ONNX CumSum (opsets 11, 14) onto te/ops/cumsum.h. The axis is
// an input tensor, but it decides which loop the sum runs along, so it must
// be a constant.
#include "relay_import/lowering_internal.h"
#include "te/ops/cumsum.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

LOWER(l_cumsum) {
  Tensor x = c.in(0);
  if (!c.has(1)) c.fail("input axis is required");
  if (!c.cdata(1)) c.unsupported("non-constant axis");
  std::vector<int64_t> axis = c.const_ints(1, "axis");
  if (axis.size() != 1) c.shape_fail("axis must hold one value, it has " + std::to_string(axis.size()));
  int r = x.ndim();
  if (axis[0] < -r || axis[0] >= r) c.attr_fail("axis " + std::to_string(axis[0]) + " is out of range for rank " + std::to_string(r));
  bool exclusive = c.node().attr_i("exclusive", 0) != 0, reverse = c.node().attr_i("reverse", 0) != 0;
  return {ops::cumsum(x, axis[0], exclusive, reverse, c.name())};
}

}  // namespace

const OpTable &cumsum_ops() {
  static const OpTable t = {
      {"CumSum", {l_cumsum, OpPattern::Reduce}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
