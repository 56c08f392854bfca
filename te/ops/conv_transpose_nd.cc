#include "te/ops/conv_transpose_nd.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const std::string kOp = "ConvTranspose";

}  // namespace

Tensor conv_transpose_nd(const Tensor &x, const Tensor &w, const Tensor &bias, const std::vector<int64_t> &s,
                         const std::vector<int64_t> &pads, const std::vector<int64_t> &d,
                         const std::vector<int64_t> &op, int64_t groups, const std::string &name) {
  int R = x.ndim() - 2;
  if (R < 1) throw ShapeError(kOp + ": input '" + x.name() + "' " + shape_str(x.shape()) + " needs rank >= 3");
  if (w.ndim() != R + 2)
    throw ShapeError(kOp + ": weight '" + w.name() + "' " + shape_str(w.shape()) + " must have the input's rank " + std::to_string(R + 2));
  check_same_dtype(x, w, kOp);
  check_attr_list(s, R, 1, kOp, "strides");
  check_attr_list(d, R, 1, kOp, "dilations");
  // negative pads widen the output past the full result (ONNX output_shape); those positions sum no taps
  check_attr_list(pads, 2 * R, -(int64_t(1) << 24), kOp, "pads");
  check_attr_list(op, R, 0, kOp, "output_padding");
  const Shape &xs = x.shape(), &ws = w.shape();
  int64_t C = xs[1];
  if (groups < 1 || C % groups) throw AttributeError(kOp + ": attribute 'group' = " + std::to_string(groups) + " does not divide C = " + std::to_string(C));
  if (ws[0] != C)
    throw ShapeError(kOp + ": weight '" + w.name() + "' " + shape_str(ws) + " must have C = " + std::to_string(C) + " as its first extent");
  int64_t OG = ws[1], O = OG * groups, CG = C / groups;
  if (bias.defined()) {
    check_same_dtype(x, bias, kOp);
    if (bias.shape() != Shape{O})
      throw ShapeError(kOp + ": bias '" + bias.name() + "' has shape " + shape_str(bias.shape()) + ", expected [" + std::to_string(O) + "]");
  }
  Shape out = {xs[0], O};
  for (int a = 0; a < R; a++) {
    if (op[a] >= s[a] && op[a] >= d[a])
      throw AttributeError(kOp + ": attribute 'output_padding' " + list_str(op) + " must be smaller than stride or dilation");
    int64_t P = s[a] * (xs[2 + a] - 1) + op[a] + d[a] * (ws[2 + a] - 1) + 1 - pads[a] - pads[a + R];
    if (P < 1) throw ShapeError(kOp + ": output extent " + std::to_string(P) + " of spatial axis " + std::to_string(a) + " (pads too large)");
    out.push_back(P);
  }
  std::map<std::string, std::string> attrs = {{"op", kOp}, {"strides", list_str(s)}, {"pads", list_str(pads)},
                                               {"dilations", list_str(d)}, {"groups", std::to_string(groups)}};
  DType dt = x.dtype();
  Expr zero = dt.is_float() ? make_float(0, dt) : make_int(0, dt);
  Tensor conv = compute(
      out,
      [&](const std::vector<Var> &i) {
        IterVar rc = reduce_axis(CG, "rc");
        std::vector<IterVar> red = {rc};
        Expr c = groups == 1 ? Expr(rc.var) : Expr(i[1]) / static_cast<int>(OG) * static_cast<int>(CG) + rc.var;
        Expr oc = groups == 1 ? Expr(i[1]) : Expr(i[1]) % static_cast<int>(OG);
        std::vector<Expr> xi = {i[0], c}, wi = {c, oc};
        Expr valid;
        for (int a = 0; a < R; a++) {
          IterVar rk = reduce_axis(ws[2 + a], "rk" + std::to_string(a));
          red.push_back(rk);
          int L = static_cast<int>(xs[2 + a]), sa = static_cast<int>(s[a]);
          Expr t = Expr(i[2 + a]) + static_cast<int>(pads[a]) - Expr(rk.var) * static_cast<int>(d[a]);
          Expr q = t / sa;
          Expr ok = t >= 0 && q < L;
          if (sa > 1) ok = ok && t % sa == 0;
          valid = valid.defined() ? (valid && ok) : ok;
          xi.push_back(clamp(q, 0, L - 1));
          wi.push_back(rk.var);
        }
        return tetune::sum(select(valid, x(xi) * w(wi), zero), red);
      },
      bias.defined() ? name + ".conv" : name, "", default_axis_names(R + 2));
  annotate(conv, "conv_transpose", attrs);
  if (!bias.defined()) return conv;
  return add_channel_bias(conv, bias, name, "injective", attrs);
}

}  // namespace ops
}  // namespace tetune
