// Lowerings of DFT and STFT onto te/ops/dft.h (direct sums, one reduction
// each). Lengths, steps and (opset 20) the DFT axis shape the output, so they
// must be constants. Source: ONNX operator spec, DFT (opsets 17, 20), STFT (17).
#include "relay_import/lowering_internal.h"
#include "te/ops/dft.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

// Scalar constant input i; "unsupported" when it is not a constant.
int64_t const_scalar(LowerContext &c, int i, const std::string &what) {
  if (!c.cdata(i)) c.unsupported("non-constant " + what + " (the output shape would depend on data)");
  auto v = c.const_ints(i, what);
  if (v.size() != 1) c.shape_fail(what + " must hold one value, it has " + std::to_string(v.size()));
  return v[0];
}

LOWER(l_dft) {
  Tensor x = c.in_min_rank(0, 2, "input");
  // opset 20 moved axis from an attribute (default 1) to input 2 (default -2)
  int64_t axis = c.opset() >= 20 ? (c.has(2) ? const_scalar(c, 2, "axis") : -2) : c.node().attr_i("axis", 1);
  int r = x.ndim();
  if (axis < -r || axis >= r) c.attr_fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  int ax = static_cast<int>(axis < 0 ? axis + r : axis);
  int64_t length = c.has(1) ? const_scalar(c, 1, "dft_length") : x.shape()[ax];
  bool inverse = c.node().attr_i("inverse", 0) != 0, onesided = c.node().attr_i("onesided", 0) != 0;
  if (onesided && inverse) c.unsupported("onesided with inverse (the spec leaves it undefined)");
  return {ops::dft(x, ax, length, inverse, onesided, c.name())};
}

LOWER(l_stft) {
  Tensor x = c.in_rank(0, 3, "signal");
  if (!c.has(1)) c.fail("input frame_step is required");
  int64_t step = const_scalar(c, 1, "frame_step");
  Tensor window;
  int64_t length = -1;
  if (c.has(2)) {
    window = c.in_rank(2, 1, "window");
    length = window.shape()[0];
  }
  if (c.has(3)) {
    int64_t l = const_scalar(c, 3, "frame_length");
    if (length >= 0 && l != length)
      c.shape_fail("frame_length " + std::to_string(l) + " differs from the window length " + std::to_string(length));
    length = l;
  }
  if (length < 0) c.fail("needs a window or a frame_length");
  return {ops::stft(x, step, window, length, c.node().attr_i("onesided", 1) != 0, c.name())};
}

}  // namespace

const OpTable &signal_ops() {
  static const OpTable t = {
      {"DFT", {l_dft, OpPattern::Reduce}},
      {"STFT", {l_stft, OpPattern::Reduce}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
