#include "te/ops/conv.h"

#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/transform.h"

namespace tetune {
namespace ops {

namespace {
struct Attr2d {
  int64_t sh, sw, pt, pl, pb, pr, dh, dw;
};
std::vector<int64_t> check_pair(const std::vector<int64_t> &v, const std::string &op, const std::string &attr, int64_t lo) {
  if (v.size() != 2) throw AttributeError(op + ": attribute '" + attr + "' " + list_str(v) + " must have 2 values");
  for (auto x : v)
    if (x < lo) throw AttributeError(op + ": attribute '" + attr + "' " + list_str(v) + " must be >= " + std::to_string(lo));
  return v;
}
Attr2d parse(const std::vector<int64_t> &strides, const std::vector<int64_t> &pads_in, const std::vector<int64_t> &dil,
             const std::string &op) {
  check_pair(strides, op, "strides", 1);
  check_pair(dil, op, "dilations", 1);
  std::vector<int64_t> pads = pads_in;
  if (pads.size() == 2) pads = {pads[0], pads[1], pads[0], pads[1]};
  if (pads.size() != 4) throw AttributeError(op + ": attribute 'pads' " + list_str(pads_in) + " must have 4 values");
  for (auto p : pads)
    if (p < 0) throw AttributeError(op + ": attribute 'pads' " + list_str(pads_in) + " must be >= 0");
  return {strides[0], strides[1], pads[0], pads[1], pads[2], pads[3], dil[0], dil[1]};
}
std::map<std::string, std::string> attr_map(const std::string &op, const Attr2d &a, int64_t groups) {
  return {{"op", op},
          {"strides", list_str({a.sh, a.sw})},
          {"pads", list_str({a.pt, a.pl, a.pb, a.pr})},
          {"dilations", list_str({a.dh, a.dw})},
          {"groups", std::to_string(groups)}};
}
Tensor add_bias(const Tensor &conv, const Tensor &bias, const std::string &name, const std::string &op,
                const std::map<std::string, std::string> &attrs) {
  if (!bias.defined()) return conv;
  Tensor t = compute(
      conv.shape(), [&](const std::vector<Var> &i) { return conv(i[0], i[1], i[2], i[3]) + bias(i[1]); }, name, "",
      {"n", "c", "h", "w"});
  return annotate(t, "broadcast", attrs);
}
void check_common(const Tensor &x, const Tensor &w, const Tensor &bias, int64_t groups, const std::string &op) {
  check_rank(x, 4, op, "input");
  check_rank(w, 4, op, "weight");
  check_same_dtype(x, w, op);
  if (groups < 1) throw AttributeError(op + ": attribute 'groups' = " + std::to_string(groups) + " must be >= 1");
  if (bias.defined()) check_same_dtype(x, bias, op);
}
}  // namespace

Tensor conv2d(const Tensor &x, const Tensor &w, const Tensor &bias, const std::vector<int64_t> &strides,
              const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations, int64_t groups,
              const std::string &name) {
  const std::string op = "Conv";
  check_common(x, w, bias, groups, op);
  Attr2d a = parse(strides, pads, dilations, op);
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  int64_t O = w.shape()[0], CG = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  if (C % groups || O % groups)
    throw AttributeError(op + ": attribute 'groups' = " + std::to_string(groups) + " does not divide C = " + std::to_string(C) +
                         " and O = " + std::to_string(O));
  if (CG != C / groups)
    throw ShapeError(op + ": weight '" + w.name() + "' " + shape_str(w.shape()) + " has " + std::to_string(CG) +
                     " input channels per group, input '" + x.name() + "' " + shape_str(x.shape()) + " needs " +
                     std::to_string(C / groups));
  if (bias.defined() && bias.shape() != Shape{O})
    throw ShapeError(op + ": bias '" + bias.name() + "' has shape " + shape_str(bias.shape()) + ", expected " + std::to_string(O));
  int64_t Hp = H + a.pt + a.pb, Wp = W + a.pl + a.pr;
  int64_t OH = (Hp - a.dh * (KH - 1) - 1) / a.sh + 1, OW = (Wp - a.dw * (KW - 1) - 1) / a.sw + 1;
  if (Hp - a.dh * (KH - 1) - 1 < 0 || Wp - a.dw * (KW - 1) - 1 < 0)
    throw ShapeError(op + ": kernel " + shape_str({KH, KW}) + " (dilated) is larger than the padded input " + shape_str({Hp, Wp}));
  auto attrs = attr_map(op, a, groups);
  Tensor xp = x;
  if (a.pt || a.pl || a.pb || a.pr) {
    xp = compute(
        {N, C, Hp, Wp},
        [&](const std::vector<Var> &i) {
          Expr h = Expr(i[2]) - static_cast<int>(a.pt), ww = Expr(i[3]) - static_cast<int>(a.pl);
          Expr inside = h >= 0 && h < static_cast<int>(H) && ww >= 0 && ww < static_cast<int>(W);
          Expr v = x(i[0], i[1], clamp(h, 0, static_cast<int>(H - 1)), clamp(ww, 0, static_cast<int>(W - 1)));
          return select(inside, v, x.dtype().is_float() ? make_float(0, x.dtype()) : make_int(0, x.dtype()));
        },
        name + ".pad", "", {"n", "c", "h", "w"});
    annotate(xp, "injective", {{"op", "Pad"}, {"pads", list_str({0, 0, a.pt, a.pl, 0, 0, a.pb, a.pr})}});
  }
  int64_t OG = O / groups;
  Tensor conv = compute(
      {N, O, OH, OW},
      [&](const std::vector<Var> &i) {
        IterVar rc = reduce_axis(CG, "rc"), ry = reduce_axis(KH, "ry"), rx = reduce_axis(KW, "rx");
        Expr c = groups == 1 ? Expr(rc) : Expr(i[1]) / static_cast<int>(OG) * static_cast<int>(CG) + rc;
        Expr h = Expr(i[2]) * static_cast<int>(a.sh) + ry * static_cast<int>(a.dh);
        Expr ww = Expr(i[3]) * static_cast<int>(a.sw) + rx * static_cast<int>(a.dw);
        return tetune::sum(xp(i[0], c, h, ww) * w(i[1], rc, ry, rx), {rc, ry, rx});
      },
      bias.defined() ? name + ".conv" : name, "", {"n", "c", "h", "w"});
  annotate(conv, "conv2d", attrs);
  return add_bias(conv, bias, name, op, attrs);
}

Tensor conv2d_nchwc(const Tensor &x, const Tensor &w, const std::vector<int64_t> &strides, const std::vector<int64_t> &pads,
                    const std::string &name, int64_t groups) {
  const std::string op = "conv2d_nchwc";
  check_rank(x, 5, op, "input");
  check_rank(w, 6, op, "weight");
  check_same_dtype(x, w, op);
  Attr2d a = parse(strides, pads, {1, 1}, op);
  int64_t N = x.shape()[0], CO = x.shape()[1], H = x.shape()[2], W = x.shape()[3], CB = x.shape()[4];
  int64_t KO = w.shape()[0], KH = w.shape()[2], KW = w.shape()[3], KB = w.shape()[5];
  if (groups < 1 || CO % groups != 0 || KO % groups != 0)
    throw AttributeError(op + ": groups = " + std::to_string(groups) + " must divide the input's " + std::to_string(CO) +
                         " and the weight's " + std::to_string(KO) + " channel blocks");
  const int64_t group_blocks = CO / groups, group_out_blocks = KO / groups;
  if (w.shape()[1] != group_blocks || w.shape()[4] != CB)
    throw ShapeError(op + ": weight '" + w.name() + "' " + shape_str(w.shape()) + " must be [O/ob, " + std::to_string(group_blocks) +
                     ", KH, KW, " + std::to_string(CB) + ", ob] for input '" + x.name() + "' " + shape_str(x.shape()) +
                     " in " + std::to_string(groups) + " groups");
  int64_t Hp = H + a.pt + a.pb, Wp = W + a.pl + a.pr;
  if (Hp < KH || Wp < KW)
    throw ShapeError(op + ": kernel " + shape_str({KH, KW}) + " is larger than the padded input " + shape_str({Hp, Wp}));
  int64_t OH = (Hp - KH) / a.sh + 1, OW = (Wp - KW) / a.sw + 1;
  // The blocked input padded along h and w only (ONNX Pad order: all begins, then all ends).
  Tensor xp = (a.pt || a.pl || a.pb || a.pr) ? pad(x, {0, 0, a.pt, a.pl, 0, 0, 0, a.pb, a.pr, 0}, "constant", 0.0, name + ".pad")
                                             : x;
  Tensor conv = compute(
      {N, KO, OH, OW, KB},
      [&](const std::vector<Var> &i) {
        // Reduce axes in the loop order of TVM's x86 conv2d_NCHWc schedule
        // (ic_outer, kh, ic_inner, kw): the column tap innermost, so that
        // neighbouring output columns of a register block reuse the input
        // values they share across taps (by hand, 6% faster than rci innermost).
        IterVar rco = reduce_axis(group_blocks, "rco"), ry = reduce_axis(KH, "ry"), rci = reduce_axis(CB, "rci"),
                rx = reduce_axis(KW, "rx");
        Expr h = Expr(i[2]) * static_cast<int>(a.sh) + ry, ww = Expr(i[3]) * static_cast<int>(a.sw) + rx;
        Expr block = groups == 1 ? Expr(rco) : Expr(i[1]) / static_cast<int>(group_out_blocks) * static_cast<int>(group_blocks) + rco;
        return tetune::sum(xp(i[0], block, h, ww, rci) * w(i[1], rco, ry, rx, rci, i[4]),
                           {rco, ry, rci, rx});
      },
      name, "", {"n", "k", "h", "w", "kb"});
  auto attrs = attr_map(op, a, groups);
  attrs["layout"] = "NCHW" + std::to_string(CB) + "c/OIHW" + std::to_string(CB) + "i" + std::to_string(KB) + "o";
  return annotate(conv, "conv2d_nchwc", attrs);
}

Tensor depthwise_conv2d_nchwc(const Tensor &x, const Tensor &w, const std::vector<int64_t> &strides,
                              const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations, const std::string &name) {
  const std::string op = "depthwise_conv2d_nchwc";
  check_rank(x, 5, op, "input");
  check_rank(w, 4, op, "weight");
  check_same_dtype(x, w, op);
  Attr2d a = parse(strides, pads, dilations, op);
  const int64_t N = x.shape()[0], CO = x.shape()[1], H = x.shape()[2], W = x.shape()[3], CB = x.shape()[4];
  const int64_t KH = w.shape()[1], KW = w.shape()[2];
  if (w.shape()[0] != CO || w.shape()[3] != CB)
    throw ShapeError(op + ": weight '" + w.name() + "' " + shape_str(w.shape()) + " must be [" + std::to_string(CO) + ", KH, KW, " +
                     std::to_string(CB) + "] for input '" + x.name() + "' " + shape_str(x.shape()));
  const int64_t Hp = H + a.pt + a.pb, Wp = W + a.pl + a.pr, ekh = a.dh * (KH - 1) + 1, ekw = a.dw * (KW - 1) + 1;
  if (Hp < ekh || Wp < ekw)
    throw ShapeError(op + ": kernel " + shape_str({KH, KW}) + " (dilated) is larger than the padded input " + shape_str({Hp, Wp}));
  const int64_t OH = (Hp - ekh) / a.sh + 1, OW = (Wp - ekw) / a.sw + 1;
  Tensor xp = (a.pt || a.pl || a.pb || a.pr) ? pad(x, {0, 0, a.pt, a.pl, 0, 0, 0, a.pb, a.pr, 0}, "constant", 0.0, name + ".pad")
                                             : x;
  Tensor conv = compute(
      {N, CO, OH, OW, CB},
      [&](const std::vector<Var> &i) {
        IterVar ry = reduce_axis(KH, "ry"), rx = reduce_axis(KW, "rx");
        Expr h = Expr(i[2]) * static_cast<int>(a.sh) + ry * static_cast<int>(a.dh);
        Expr ww = Expr(i[3]) * static_cast<int>(a.sw) + rx * static_cast<int>(a.dw);
        return tetune::sum(xp(i[0], i[1], h, ww, i[4]) * w(i[1], ry, rx, i[4]), {ry, rx});
      },
      name, "", {"n", "c", "h", "w", "cb"});
  auto attrs = attr_map(op, a, CO * CB);
  attrs["layout"] = "NCHW" + std::to_string(CB) + "c";
  return annotate(conv, "depthwise_conv2d_nchwc", attrs);
}

Tensor conv2d_transpose(const Tensor &x, const Tensor &w, const Tensor &bias, const std::vector<int64_t> &strides,
                        const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations,
                        const std::vector<int64_t> &output_padding, int64_t groups, const std::string &name) {
  const std::string op = "ConvTranspose";
  check_common(x, w, bias, groups, op);
  Attr2d a = parse(strides, pads, dilations, op);
  check_pair(output_padding, op, "output_padding", 0);
  if ((output_padding[0] >= a.sh && output_padding[0] >= a.dh) || (output_padding[1] >= a.sw && output_padding[1] >= a.dw))
    throw AttributeError(op + ": attribute 'output_padding' " + list_str(output_padding) + " must be smaller than stride or dilation");
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  if (w.shape()[0] != C)
    throw ShapeError(op + ": weight '" + w.name() + "' " + shape_str(w.shape()) + " must have C = " + std::to_string(C) +
                     " as its first extent (input '" + x.name() + "' " + shape_str(x.shape()) + ")");
  if (C % groups) throw AttributeError(op + ": attribute 'groups' = " + std::to_string(groups) + " does not divide C = " + std::to_string(C));
  int64_t OG = w.shape()[1], O = OG * groups, KH = w.shape()[2], KW = w.shape()[3], CG = C / groups;
  if (bias.defined() && bias.shape() != Shape{O})
    throw ShapeError(op + ": bias '" + bias.name() + "' has shape " + shape_str(bias.shape()) + ", expected " + std::to_string(O));
  int64_t OH = a.sh * (H - 1) + output_padding[0] + a.dh * (KH - 1) + 1 - a.pt - a.pb;
  int64_t OW = a.sw * (W - 1) + output_padding[1] + a.dw * (KW - 1) + 1 - a.pl - a.pr;
  if (OH < 1 || OW < 1) throw ShapeError(op + ": output would be " + shape_str({OH, OW}) + " (pads too large)");
  auto attrs = attr_map(op, a, groups);
  attrs["output_padding"] = list_str(output_padding);
  DType dt = x.dtype();
  if (KH == a.sh && KW == a.sw && a.dh == 1 && a.dw == 1 && output_padding[0] == 0 && output_padding[1] == 0) {
    // One tap per output pixel: (oh + top) / sh < H holds since oh + top <= sh * H - bottom - 1.
    Tensor conv = compute(
        {N, O, OH, OW},
        [&](const std::vector<Var> &i) {
          IterVar rc = reduce_axis(CG, "rc");
          Expr c = groups == 1 ? Expr(rc.var) : Expr(i[1]) / static_cast<int>(OG) * static_cast<int>(CG) + rc.var;
          Expr oc = groups == 1 ? Expr(i[1]) : Expr(i[1]) % static_cast<int>(OG);
          Expr th = Expr(i[2]) + static_cast<int>(a.pt), tw = Expr(i[3]) + static_cast<int>(a.pl);
          Expr sh = Expr(static_cast<int>(a.sh)), sw = Expr(static_cast<int>(a.sw));
          return tetune::sum(x(i[0], c, th / sh, tw / sw) * w(c, oc, th % sh, tw % sw), {rc});
        },
        bias.defined() ? name + ".conv" : name, "", {"n", "c", "h", "w"});
    annotate(conv, "conv2d_transpose", attrs);
    return add_bias(conv, bias, name, op, attrs);
  }
  // Dilated, padded input: position y holds x[(y - off) / s] when (y - off) % s == 0 and in range.
  int64_t offh = a.dh * (KH - 1) - a.pt, offw = a.dw * (KW - 1) - a.pl;
  int64_t Hp = OH + a.dh * (KH - 1), Wp = OW + a.dw * (KW - 1);
  Tensor xp = compute(
      {N, C, Hp, Wp},
      [&](const std::vector<Var> &i) {
        Expr th = Expr(i[2]) - static_cast<int>(offh), tw = Expr(i[3]) - static_cast<int>(offw);
        Expr ih = th / static_cast<int>(a.sh), iw = tw / static_cast<int>(a.sw);
        Expr inside = th >= 0 && tw >= 0 && ih < static_cast<int>(H) && iw < static_cast<int>(W);
        if (a.sh > 1) inside = inside && th % static_cast<int>(a.sh) == 0;
        if (a.sw > 1) inside = inside && tw % static_cast<int>(a.sw) == 0;
        Expr v = x(i[0], i[1], clamp(ih, 0, static_cast<int>(H - 1)), clamp(iw, 0, static_cast<int>(W - 1)));
        return select(inside, v, dt.is_float() ? make_float(0, dt) : make_int(0, dt));
      },
      name + ".pad", "", {"n", "c", "h", "w"});
  annotate(xp, "injective", {{"op", op}, {"strides", list_str({a.sh, a.sw})}});
  Tensor conv = compute(
      {N, O, OH, OW},
      [&](const std::vector<Var> &i) {
        IterVar rc = reduce_axis(CG, "rc"), ry = reduce_axis(KH, "ry"), rx = reduce_axis(KW, "rx");
        Expr c = groups == 1 ? Expr(rc.var) : Expr(i[1]) / static_cast<int>(OG) * static_cast<int>(CG) + rc.var;
        Expr oc = groups == 1 ? Expr(i[1]) : Expr(i[1]) % static_cast<int>(OG);
        Expr h = Expr(i[2]) + Expr(ry.var) * static_cast<int>(a.dh);
        Expr ww = Expr(i[3]) + Expr(rx.var) * static_cast<int>(a.dw);
        return tetune::sum(xp(i[0], c, h, ww) * w(c, oc, static_cast<int>(KH - 1) - Expr(ry.var), static_cast<int>(KW - 1) - Expr(rx.var)),
                           {rc, ry, rx});
      },
      bias.defined() ? name + ".conv" : name, "", {"n", "c", "h", "w"});
  annotate(conv, "conv2d_transpose", attrs);
  return add_bias(conv, bias, name, op, attrs);
}

}  // namespace ops
}  // namespace tetune
