// Lowering of ONNX Einsum (opset 12) onto te/ops/einsum.h: transposes,
// reshapes and batched matrix products, all tunable TE stages.
#include "relay_import/lowering_internal.h"
#include "te/ops/einsum.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

LOWER(l_einsum) {
  std::string eq = c.node().attr_s("equation", "");
  if (eq.empty()) c.attr_fail("attribute 'equation' is required");
  std::vector<Tensor> xs;
  for (int i = 0; i < c.num_inputs(); i++) {
    if (!c.has(i)) c.fail("input " + std::to_string(i) + " is omitted");
    xs.push_back(c.in(i));
  }
  if (xs.empty()) c.fail("needs at least one input");
  return {ops::einsum(eq, xs, c.name())};
}

}  // namespace

const OpTable &einsum_ops() {
  static const OpTable t = {
      {"Einsum", {l_einsum, OpPattern::Anchor}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
