#include "te/ops/dft.h"

#include <cmath>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {

// Component `comp` (0 real, 1 imaginary) of (re + i*im) * exp(sign*i*angle), with
// angle = 2*pi*((j*k) mod length)/length: the mod keeps the angle small, so
// float32 sin / cos stay accurate for long transforms.
Expr twiddled(const Expr &re, const Expr &im, const Expr &j, const Expr &k, int64_t length, double sign, DType dt,
              const Expr &comp) {
  Expr angle = cast(dt, (j * k) % make_int(length)) * make_float(2 * M_PI / static_cast<double>(length), dt);
  Expr c = cos(angle), s = sin(angle) * make_float(sign, dt);
  return select(comp == make_int(0), re * c - im * s, im * c + re * s);
}

void check_signal(const Tensor &x, const std::string &op, int min_rank) {
  if (!x.dtype().is_float()) throw DTypeError(op + ": input '" + x.name() + "' must be float, not " + x.dtype().str());
  if (x.ndim() < min_rank)
    throw ShapeError(op + ": input '" + x.name() + "' " + shape_str(x.shape()) + " needs rank >= " + std::to_string(min_rank));
  int64_t c = x.shape().back();
  if (c != 1 && c != 2)
    throw ShapeError(op + ": input '" + x.name() + "' " + shape_str(x.shape()) + " must end in 1 (real) or 2 (complex), not " +
                     std::to_string(c));
}

// The sums cancel to exact zeros often (a real signal's symmetric bins);
// accumulating in float64 keeps the float32 result within its rounding there
// (float16 inputs accumulate in float32).
DType acc_dtype(DType t) { return t.bits <= 16 ? float32() : float64(); }

// t cast back to dt as a second, injective stage (the reduction must be a stage's root).
Tensor cast_back(const Tensor &t, DType dt, const std::string &name) {
  if (t.dtype() == dt) return t;
  return compute(
      t.shape(), [&](const std::vector<Var> &i) { return cast(dt, t(std::vector<Expr>(i.begin(), i.end()))); }, name,
      "", default_axis_names(t.ndim()));
}

}  // namespace

Tensor dft(const Tensor &x, int64_t axis, int64_t length, bool inverse, bool onesided, const std::string &name) {
  const std::string op = "DFT";
  check_signal(x, op, 2);
  int r = x.ndim();
  int ax = normalize_axis(axis, r, op);
  if (ax == r - 1) throw ShapeError(op + ": axis " + std::to_string(axis) + " is the real / imaginary axis");
  if (length < 1) throw ShapeError(op + ": dft_length " + std::to_string(length) + " must be positive");
  if (onesided && inverse) throw AttributeError(op + ": onesided with inverse is not defined by the spec");
  int64_t n = std::min(x.shape()[ax], length);
  bool complex = x.shape().back() == 2;
  Shape out = x.shape();
  out[ax] = onesided ? length / 2 + 1 : length;
  out.back() = 2;
  DType dt = acc_dtype(x.dtype());
  IterVar j = reduce_axis(n, "dft_j");  // distinct from every default axis name
  double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> at(i.begin(), i.end());
        at[ax] = j;
        at.back() = make_int(0);
        Expr re = cast(dt, x(at)), im = make_float(0, dt);
        if (complex) {
          at.back() = make_int(1);
          im = cast(dt, x(at));
        }
        Expr term = twiddled(re, im, j, i[ax], length, inverse ? 1.0 : -1.0, dt, i.back());
        return sum(inverse ? term * make_float(scale, dt) : term, {j});
      },
      name + "_sum", "", default_axis_names(r));
  annotate(t, "reduce",
                  {{"op", op}, {"axis", std::to_string(ax)}, {"length", std::to_string(length)},
                   {"inverse", std::to_string(inverse)}, {"onesided", std::to_string(onesided)}});
  return cast_back(t, x.dtype(), name);
}

Tensor stft(const Tensor &signal, int64_t frame_step, const Tensor &window, int64_t frame_length, bool onesided,
            const std::string &name) {
  const std::string op = "STFT";
  check_signal(signal, op, 3);
  if (signal.ndim() != 3) throw ShapeError(op + ": signal " + shape_str(signal.shape()) + " must be [batch, length, 1 or 2]");
  int64_t L = signal.shape()[1];
  if (frame_step < 1) throw ShapeError(op + ": frame_step " + std::to_string(frame_step) + " must be positive");
  if (frame_length < 1 || frame_length > L)
    throw ShapeError(op + ": frame_length " + std::to_string(frame_length) + " must be in 1.." + std::to_string(L));
  if (window.defined()) {
    if (window.shape() != Shape{frame_length})
      throw ShapeError(op + ": window " + shape_str(window.shape()) + " must be [" + std::to_string(frame_length) + "]");
    check_same_dtype(signal, window, op);
  }
  bool complex = signal.shape().back() == 2;
  int64_t frames = (L - frame_length) / frame_step + 1;
  int64_t bins = onesided ? frame_length / 2 + 1 : frame_length;
  DType dt = acc_dtype(signal.dtype());
  IterVar j = reduce_axis(frame_length, "dft_j");
  Tensor t = compute(
      {signal.shape()[0], frames, bins, 2},
      [&](const std::vector<Var> &i) {
        Expr pos = i[1] * make_int(frame_step) + j;
        Expr re = cast(dt, signal({i[0], pos, make_int(0)}));
        Expr im = complex ? cast(dt, signal({i[0], pos, make_int(1)})) : make_float(0, dt);
        if (window.defined()) {
          Expr w = cast(dt, window({Expr(j)}));
          re = re * w;
          im = im * w;
        }
        return sum(twiddled(re, im, j, i[2], frame_length, -1.0, dt, i[3]), {j});
      },
      name + "_sum", "", {"b", "f", "k", "c"});
  annotate(t, "reduce",
                  {{"op", op}, {"frame_step", std::to_string(frame_step)}, {"frame_length", std::to_string(frame_length)},
                   {"onesided", std::to_string(onesided)}});
  return cast_back(t, signal.dtype(), name);
}

}  // namespace ops
}  // namespace tetune
