#include "te/ops/pool.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {
struct PoolGeom {
  int64_t kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, OH, OW;
};

std::vector<int64_t> pair(const std::vector<int64_t> &v, const std::string &op, const std::string &attr, int64_t lo) {
  if (v.size() != 2) throw AttributeError(op + ": attribute '" + attr + "' " + list_str(v) + " must have 2 values");
  for (auto x : v)
    if (x < lo) throw AttributeError(op + ": attribute '" + attr + "' " + list_str(v) + " must be >= " + std::to_string(lo));
  return v;
}

int64_t out_extent(int64_t n, int64_t pb, int64_t pe, int64_t ek, int64_t s, bool ceil_mode) {
  int64_t num = n + pb + pe - ek;
  if (num < 0) return 0;
  int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (o - 1) * s >= n + pb) o--;
  return o;
}

PoolGeom geometry(const Tensor &x, const std::vector<int64_t> &kernel, const std::vector<int64_t> &strides,
                  const std::vector<int64_t> &pads_in, const std::vector<int64_t> &dil, bool ceil_mode, const std::string &op) {
  if (x.ndim() != 5) check_rank(x, 4, op, "input");
  pair(kernel, op, "kernel_shape", 1);
  pair(strides, op, "strides", 1);
  pair(dil, op, "dilations", 1);
  std::vector<int64_t> pads = pads_in;
  if (pads.size() == 2) pads = {pads[0], pads[1], pads[0], pads[1]};
  if (pads.size() != 4) throw AttributeError(op + ": attribute 'pads' " + list_str(pads_in) + " must have 4 values");
  PoolGeom g{kernel[0], kernel[1], strides[0], strides[1], pads[0], pads[1], pads[2], pads[3], dil[0], dil[1], 0, 0};
  int64_t ekh = g.dh * (g.kh - 1) + 1, ekw = g.dw * (g.kw - 1) + 1;
  for (int i = 0; i < 4; i++)
    if (pads[i] < 0 || pads[i] >= (i % 2 ? ekw : ekh))
      throw AttributeError(op + ": attribute 'pads' " + list_str(pads_in) + " must be >= 0 and smaller than the kernel");
  g.OH = out_extent(x.shape()[2], g.pt, g.pb, ekh, g.sh, ceil_mode);
  g.OW = out_extent(x.shape()[3], g.pl, g.pr, ekw, g.sw, ceil_mode);
  if (g.OH < 1 || g.OW < 1)
    throw ShapeError(op + ": kernel " + list_str(kernel) + " is larger than the padded input '" + x.name() + "' " + shape_str(x.shape()));
  return g;
}

std::map<std::string, std::string> attrs_of(const std::string &op, const PoolGeom &g, bool ceil_mode) {
  return {{"op", op},
          {"kernel", list_str({g.kh, g.kw})},
          {"strides", list_str({g.sh, g.sw})},
          {"pads", list_str({g.pt, g.pl, g.pb, g.pr})},
          {"dilations", list_str({g.dh, g.dw})},
          {"ceil_mode", ceil_mode ? "1" : "0"}};
}

// The output shape [N, C, OH, OW], or [N, C/b, OH, OW, b] for a blocked x, and its axis names.
Shape out_shape(const Tensor &x, const PoolGeom &g) {
  Shape s{x.shape()[0], x.shape()[1], g.OH, g.OW};
  if (x.ndim() == 5) s.push_back(x.shape()[4]);
  return s;
}
std::vector<std::string> out_axes(const Tensor &x) {
  if (x.ndim() == 5) return {"n", "c", "h", "w", "cb"};
  return {"n", "c", "h", "w"};
}
// x at row h, column w of output position i (its channel block lane too, when blocked).
Expr at(const Tensor &x, const std::vector<Var> &i, const Expr &h, const Expr &w) {
  if (x.ndim() == 5) return x(i[0], i[1], h, w, i[4]);
  return x(i[0], i[1], h, w);
}

// x at window position (ry, rx) of output (h, w), or `fill` outside the input.
Expr window_value(const Tensor &x, const PoolGeom &g, const std::vector<Var> &i, const IterVar &ry, const IterVar &rx,
                  const Expr &fill) {
  int H = static_cast<int>(x.shape()[2]), W = static_cast<int>(x.shape()[3]);
  Expr h = Expr(i[2]) * static_cast<int>(g.sh) + ry * static_cast<int>(g.dh) - static_cast<int>(g.pt);
  Expr w = Expr(i[3]) * static_cast<int>(g.sw) + rx * static_cast<int>(g.dw) - static_cast<int>(g.pl);
  Expr inside = h >= 0 && h < H && w >= 0 && w < W;
  return select(inside, at(x, i, clamp(h, 0, H - 1), clamp(w, 0, W - 1)), fill);
}
}  // namespace

Tensor max_pool2d(const Tensor &x, const std::vector<int64_t> &kernel, const std::vector<int64_t> &strides,
                  const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations, bool ceil_mode,
                  const std::string &name) {
  const std::string op = "MaxPool";
  PoolGeom g = geometry(x, kernel, strides, pads, dilations, ceil_mode, op);
  Tensor t = compute(
      out_shape(x, g),
      [&](const std::vector<Var> &i) {
        IterVar ry = reduce_axis(g.kh, "ry"), rx = reduce_axis(g.kw, "rx");
        return tetune::max(window_value(x, g, i, ry, rx, min_value(x.dtype())), {ry, rx});
      },
      name, "", out_axes(x));
  return annotate(t, "pool", attrs_of(op, g, ceil_mode));
}

Tensor avg_pool2d(const Tensor &x, const std::vector<int64_t> &kernel, const std::vector<int64_t> &strides,
                  const std::vector<int64_t> &pads, bool ceil_mode, bool count_include_pad, const std::string &name) {
  const std::string op = "AveragePool";
  check_float(x, op);
  PoolGeom g = geometry(x, kernel, strides, pads, {1, 1}, ceil_mode, op);
  auto attrs = attrs_of(op, g, ceil_mode);
  attrs["count_include_pad"] = count_include_pad ? "1" : "0";
  DType dt = x.dtype();
  Tensor s = compute(
      out_shape(x, g),
      [&](const std::vector<Var> &i) {
        IterVar ry = reduce_axis(g.kh, "ry"), rx = reduce_axis(g.kw, "rx");
        return tetune::sum(window_value(x, g, i, ry, rx, make_float(0, dt)), {ry, rx});
      },
      name + ".sum", "", out_axes(x));
  annotate(s, "pool", attrs);
  int H = static_cast<int>(x.shape()[2]), W = static_cast<int>(x.shape()[3]);
  Tensor t = compute(
      s.shape(),
      [&](const std::vector<Var> &i) {
        Expr hs = Expr(i[2]) * static_cast<int>(g.sh) - static_cast<int>(g.pt);
        Expr ws = Expr(i[3]) * static_cast<int>(g.sw) - static_cast<int>(g.pl);
        Expr ch, cw;
        if (count_include_pad) {
          ch = tetune::min(hs + static_cast<int>(g.kh), H + static_cast<int>(g.pb)) - hs;
          cw = tetune::min(ws + static_cast<int>(g.kw), W + static_cast<int>(g.pr)) - ws;
        } else {
          ch = tetune::min(hs + static_cast<int>(g.kh), H) - tetune::max(hs, 0);
          cw = tetune::min(ws + static_cast<int>(g.kw), W) - tetune::max(ws, 0);
        }
        return at(s, i, i[2], i[3]) / tetune::cast(dt, tetune::max(ch * cw, 1));
      },
      name, "", out_axes(x));
  return annotate(t, "pool", attrs);
}

Tensor global_avg_pool2d(const Tensor &x, const std::string &name) {
  const std::string op = "GlobalAveragePool";
  check_rank(x, 4, op, "input");
  check_float(x, op);
  DType dt = x.dtype();
  int64_t H = x.shape()[2], W = x.shape()[3];
  // The largest of 16, 8, 4 dividing W, else a row of 5-7 whole (a 7x7 pool 2.4x faster so; a row of
  // 14 as lanes ran slower than the serial sum).
  int64_t lanes = W > 4 && W < 8 ? W : 1;
  for (int64_t l : {16, 8, 4})
    if (W % l == 0) {
      lanes = l;
      break;
    }
  Tensor s;
  if (lanes > 1) {
    // Partial sums of W's columns in `lanes` accumulators, then their sum: the
    // row loop reads contiguous vectors (a sum over (ry, rx) with rx innermost
    // is one serial chain per channel; EfficientNet-B0's 144x56x56 pool took
    // 0.21 ms so, onnxruntime's channel-blocked one 0.03 ms).
    Tensor part = compute(
        {x.shape()[0], x.shape()[1], lanes},
        [&](const std::vector<Var> &i) {
          IterVar ry = reduce_axis(H, "ry"), ro = reduce_axis(W / lanes, "rx");
          return tetune::sum(x(i[0], i[1], ry, Expr(ro) * lanes + i[2]), {ry, ro});
        },
        name + ".lanes", "", {"n", "c", "l"});
    annotate(part, "pool", {{"op", op}});
    s = compute(
        {x.shape()[0], x.shape()[1], 1, 1},
        [&](const std::vector<Var> &i) {
          IterVar rl = reduce_axis(lanes, "rl");
          return tetune::sum(part(i[0], i[1], rl), {rl});
        },
        name + ".sum", "", {"n", "c", "h", "w"});
  } else {
    s = compute(
        {x.shape()[0], x.shape()[1], 1, 1},
        [&](const std::vector<Var> &i) {
          IterVar ry = reduce_axis(H, "ry"), rx = reduce_axis(W, "rx");
          return tetune::sum(x(i[0], i[1], ry, rx), {ry, rx});
        },
        name + ".sum", "", {"n", "c", "h", "w"});
  }
  annotate(s, "pool", {{"op", op}});
  Tensor t = compute(
      s.shape(),
      [&](const std::vector<Var> &i) { return s(i[0], i[1], i[2], i[3]) * make_float(1.0 / static_cast<double>(H * W), dt); },
      name, "", {"n", "c", "h", "w"});
  return annotate(t, "pool", {{"op", op}});
}

}  // namespace ops
}  // namespace tetune
