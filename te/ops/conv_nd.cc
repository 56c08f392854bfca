#include "te/ops/conv_nd.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
const std::string kOp = "Conv";

}  // namespace

Tensor conv_nd(const Tensor &x, const Tensor &w, const Tensor &bias, const std::vector<int64_t> &s,
               const std::vector<int64_t> &pads, const std::vector<int64_t> &d, int64_t groups, const std::string &name) {
  int R = x.ndim() - 2;
  if (R < 1) throw ShapeError(kOp + ": input '" + x.name() + "' " + shape_str(x.shape()) + " needs rank >= 3");
  if (w.ndim() != R + 2)
    throw ShapeError(kOp + ": weight '" + w.name() + "' " + shape_str(w.shape()) + " must have the input's rank " + std::to_string(R + 2));
  check_same_dtype(x, w, kOp);
  check_attr_list(s, R, 1, kOp, "strides");
  check_attr_list(d, R, 1, kOp, "dilations");
  check_attr_list(pads, 2 * R, 0, kOp, "pads");
  const Shape &xs = x.shape(), &ws = w.shape();
  int64_t C = xs[1], O = ws[0], CG = ws[1];
  if (groups < 1 || C % groups || O % groups)
    throw AttributeError(kOp + ": attribute 'group' = " + std::to_string(groups) + " does not divide C = " + std::to_string(C) +
                         " and O = " + std::to_string(O));
  if (CG != C / groups)
    throw ShapeError(kOp + ": weight '" + w.name() + "' " + shape_str(ws) + " has " + std::to_string(CG) +
                     " input channels per group, input '" + x.name() + "' " + shape_str(xs) + " needs " + std::to_string(C / groups));
  if (bias.defined()) {
    check_same_dtype(x, bias, kOp);
    if (bias.shape() != Shape{O})
      throw ShapeError(kOp + ": bias '" + bias.name() + "' has shape " + shape_str(bias.shape()) + ", expected [" + std::to_string(O) + "]");
  }
  Shape padded = {xs[0], C}, out = {xs[0], O};
  bool any_pad = false;
  for (int a = 0; a < R; a++) {
    int64_t Lp = xs[2 + a] + pads[a] + pads[a + R], span = d[a] * (ws[2 + a] - 1) + 1;
    if (Lp < span)
      throw ShapeError(kOp + ": kernel " + shape_str(ws) + " (dilated) is larger than the padded input along spatial axis " + std::to_string(a));
    padded.push_back(Lp);
    out.push_back((Lp - span) / s[a] + 1);
    any_pad = any_pad || pads[a] || pads[a + R];
  }
  std::map<std::string, std::string> attrs = {{"op", kOp}, {"strides", list_str(s)}, {"pads", list_str(pads)},
                                               {"dilations", list_str(d)}, {"groups", std::to_string(groups)}};
  DType dt = x.dtype();
  Expr zero = dt.is_float() ? make_float(0, dt) : make_int(0, dt);
  Tensor xp = x;
  if (any_pad) {
    // a separate pad stage keeps the reduction free of bounds tests, as conv2d does
    xp = compute(
        padded,
        [&](const std::vector<Var> &i) {
          std::vector<Expr> at = {i[0], i[1]};
          Expr inside;
          for (int a = 0; a < R; a++) {
            int L = static_cast<int>(xs[2 + a]);
            Expr q = Expr(i[2 + a]) - static_cast<int>(pads[a]);
            Expr ok = q >= 0 && q < L;
            inside = inside.defined() ? (inside && ok) : ok;
            at.push_back(clamp(q, 0, L - 1));
          }
          return select(inside, x(at), zero);
        },
        name + ".pad", "", default_axis_names(R + 2));
    annotate(xp, "injective", {{"op", "Pad"}, {"pads", list_str(pads)}});
  }
  int64_t OG = O / groups;
  Tensor conv = compute(
      out,
      [&](const std::vector<Var> &i) {
        IterVar rc = reduce_axis(CG, "rc");
        std::vector<IterVar> red = {rc};
        Expr c = groups == 1 ? Expr(rc.var) : Expr(i[1]) / static_cast<int>(OG) * static_cast<int>(CG) + rc.var;
        std::vector<Expr> xi = {i[0], c}, wi = {i[1], rc.var};
        for (int a = 0; a < R; a++) {
          IterVar rk = reduce_axis(ws[2 + a], "rk" + std::to_string(a));
          red.push_back(rk);
          xi.push_back(Expr(i[2 + a]) * static_cast<int>(s[a]) + Expr(rk.var) * static_cast<int>(d[a]));
          wi.push_back(rk.var);
        }
        return tetune::sum(xp(xi) * w(wi), red);
      },
      bias.defined() ? name + ".conv" : name, "", default_axis_names(R + 2));
  annotate(conv, "conv_nd", attrs);
  if (!bias.defined()) return conv;
  return add_channel_bias(conv, bias, name, "broadcast", attrs);
}

}  // namespace ops
}  // namespace tetune
