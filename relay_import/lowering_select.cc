// Lowerings of TopK, LRN and the window generators (HannWindow, HammingWindow,
// BlackmanWindow) onto te/ops.
#include "relay_import/lowering_internal.h"
#include "te/ops/lrn.h"
#include "te/ops/topk.h"
#include "te/ops/window.h"

namespace tetune {
namespace relay {
namespace lowering {

namespace {

LOWER(l_topk) {
  Tensor x = c.in_min_rank(0, 1, "X");
  int64_t k = 0;
  if (c.opset() < 10) {
    k = c.node().attr_i("k", -1);
  } else {
    if (!c.cdata(1)) c.unsupported("non-constant K (the output shape would depend on data)");
    auto ks = c.const_ints(1, "K");
    if (ks.size() != 1) c.shape_fail("K must hold one value, it has " + std::to_string(ks.size()));
    k = ks[0];
  }
  bool largest = c.node().attr_i("largest", 1) != 0;
  // sorted=0 allows any order; the sorted order is one of them
  auto r = ops::topk(x, k, c.node().attr_i("axis", -1), largest, c.name());
  return {r.first, r.second};
}

LOWER(l_lrn) {
  int64_t size = c.node().attr_i("size", 0);
  if (!c.node().has_attr("size")) c.attr_fail("attribute 'size' is required");
  return {ops::lrn(c.in(0), size, c.node().attr_f("alpha", 1e-4), c.node().attr_f("beta", 0.75), c.node().attr_f("bias", 1.0),
                   c.name())};
}

std::vector<Tensor> window(LowerContext &c, const std::string &kind) {
  if (!c.cdata(0)) c.unsupported("non-constant size (the output shape would depend on data)");
  auto n = c.const_ints(0, "size");
  if (n.size() != 1) c.shape_fail("size must hold one value, it has " + std::to_string(n.size()));
  DType t = dtype_from_onnx(static_cast<int>(c.node().attr_i("output_datatype", 1)), "attribute 'output_datatype'");
  return {ops::window(kind, n[0], c.node().attr_i("periodic", 1) != 0, t, c.name())};
}

LOWER(l_hann) { return window(c, "hann"); }
LOWER(l_hamming) { return window(c, "hamming"); }
LOWER(l_blackman) { return window(c, "blackman"); }

}  // namespace

const OpTable &select_ops() {
  static const OpTable t = {
      {"TopK", {l_topk, OpPattern::Reduce}},
      {"LRN", {l_lrn, OpPattern::Reduce}},
      {"HannWindow", {l_hann, OpPattern::Injective}},
      {"HammingWindow", {l_hamming, OpPattern::Injective}},
      {"BlackmanWindow", {l_blackman, OpPattern::Injective}},
  };
  return t;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
