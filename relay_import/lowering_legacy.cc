// Opsets 1..6: which node variants the opset-7+ lowerings already compute
// correctly, and an "unsupported" error for the rest (see lowering_internal.h).
//
// Source: ONNX Changelog.md, the -1 / -6 versions of each operator. Most
// operators changed before opset 7 only by dropping `consumed_inputs` (a
// memory-reuse hint with no effect on values, ignored here) or are unchanged.
// The ones whose values or signature changed are listed below; their lowerings
// read the old attribute forms where that is a small variant (Reshape-1's
// `shape`, Dropout-6's `is_test`, Upsample-7's `scales`), and this check
// rejects what they would otherwise misread.
#include "relay_import/lowering_internal.h"

#include <set>

namespace tetune {
namespace relay {
namespace lowering {

namespace {

// Binary ops that before opset 7 broadcast only with broadcast=1, aligning B at `axis` of A.
const std::set<std::string> &legacy_broadcast_ops() {
  static const std::set<std::string> s = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Less", "Greater"};
  return s;
}

}  // namespace

void check_legacy_opset(LowerContext &c) {
  const Node &n = c.node();
  const std::string &op = n.op;
  const int v = c.opset();
  if (legacy_broadcast_ops().count(op) && n.attr_i("broadcast", 0) != 0 && n.has_attr("axis") && c.has(1)) {
    // NumPy broadcasting aligns B at the trailing axes; the legacy form at `axis`. Equal when B ends where A ends.
    int64_t ra = static_cast<int64_t>(c.value(0).shape.size()), rb = static_cast<int64_t>(c.value(1).shape.size());
    int64_t axis = n.attr_i("axis", 0);
    if (axis < 0) axis += ra;
    if (axis != ra - rb) c.unsupported("legacy broadcast of B at axis " + std::to_string(n.attr_i("axis", 0)) + " (not the trailing axes)");
  }
  if (op == "Cast" && v < 6) c.unsupported("Cast-1 (attribute 'to' as a type-name string)");
  if (op == "Tile" && v < 6) c.unsupported("Tile-1 (tiles and axis inputs)");
  if (op == "Upsample" && v < 7) c.unsupported("Upsample-1 (width_scale / height_scale attributes)");
  if (op == "Concat" && v < 4 && !n.has_attr("axis")) c.unsupported("Concat-1 without 'axis' (default 1)");
  if ((op == "Pad" || op == "Split" || op == "LpPool" || op == "GlobalLpPool") && v < 2) c.unsupported(op + "-1");
  if (op == "BatchNormalization" && v < 7) {
    if (n.attr_i("spatial", 1) != 1) c.unsupported("spatial=0 (per-activation statistics)");
    // is_test=0 (the default) normalizes by the batch's own statistics: training mode.
    if (n.attr_i("is_test", 0) == 0) c.unsupported("is_test=0 (training-mode BatchNormalization)");
  }
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
