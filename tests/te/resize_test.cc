// tetune::ops resize vs plain loops.
#include <cmath>
#include <functional>

#include "base/errors.h"
#include "te/ops/resize.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

double coord(int64_t x, int64_t in, int64_t out, double scale, const std::string &ctm) {
  if (ctm == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (ctm == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (ctm == "align_corners") return out == 1 ? 0.0 : double(x) * (in - 1) / (out - 1);
  if (ctm == "asymmetric") return x / scale;
  return (x + 0.5) / scale;  // tf_half_pixel_for_nn
}

int64_t nearest(double c, int64_t in, const std::string &nm) {
  double r;
  if (nm == "floor") r = std::floor(c);
  else if (nm == "ceil") r = std::ceil(c);
  else if (c - std::floor(c) == 0.5) r = nm == "round_prefer_floor" ? std::floor(c) : std::ceil(c);
  else r = std::round(c);
  return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(r), 0), in - 1);
}

std::vector<float> resize_ref(const std::vector<float> &x, const Shape &s, int64_t OH, int64_t OW, double sh, double sw,
                              const std::string &mode, const std::string &ctm, const std::string &nm) {
  int64_t H = s[2], W = s[3];
  std::vector<float> y;
  for (int64_t nc = 0; nc < s[0] * s[1]; nc++)
    for (int64_t oh = 0; oh < OH; oh++)
      for (int64_t ow = 0; ow < OW; ow++) {
        double ch = coord(oh, H, OH, sh, ctm), cw = coord(ow, W, OW, sw, ctm);
        auto px = [&](int64_t h, int64_t w) { return double(x[(nc * H + h) * W + w]); };
        if (mode == "nearest") {
          y.push_back(static_cast<float>(px(nearest(ch, H, nm), nearest(cw, W, nm))));
          continue;
        }
        // ONNX linear: clamp the two neighbours into range.
        int64_t h0 = static_cast<int64_t>(std::floor(ch)), w0 = static_cast<int64_t>(std::floor(cw));
        double ah = ch - h0, aw = cw - w0;
        auto cl = [](int64_t v, int64_t n) { return std::min<int64_t>(std::max<int64_t>(v, 0), n - 1); };
        double top = px(cl(h0, H), cl(w0, W)) * (1 - aw) + px(cl(h0, H), cl(w0 + 1, W)) * aw;
        double bot = px(cl(h0 + 1, H), cl(w0, W)) * (1 - aw) + px(cl(h0 + 1, H), cl(w0 + 1, W)) * aw;
        y.push_back(static_cast<float>(top * (1 - ah) + bot * ah));
      }
  return y;
}

const std::vector<std::string> kCtms = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"};

TEST(Resize, NearestAllModes) {
  Shape s = {1, 2, 4, 6};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  // Dyadic scale factors keep every coordinate exact in float32 (ties included).
  for (auto sizes : std::vector<std::vector<int64_t>>{{8, 12}, {2, 3}, {16, 3}, {1, 24}})
    for (const auto &ctm : kCtms)
      for (std::string nm : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
        SCOPED_TRACE(ctm + " " + nm + " " + std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]));
        Tensor Y = ops::resize(X, sizes, "nearest", ctm, nm);
        Shape so = {1, 2, sizes[0], sizes[1]};
        ASSERT_EQ(Y.shape(), so);
        auto ref = resize_ref(vx, s, sizes[0], sizes[1], double(sizes[0]) / 4, double(sizes[1]) / 6, "nearest", ctm, nm);
        test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
      }
}

TEST(Resize, LinearAllModes) {
  Shape s = {2, 1, 5, 4};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  for (auto sizes : std::vector<std::vector<int64_t>>{{10, 8}, {7, 9}, {3, 2}, {1, 5}})
    for (const auto &ctm : kCtms) {
      if (ctm == "tf_half_pixel_for_nn") continue;  // only defined for nearest in TF; still supported but skip
      SCOPED_TRACE(ctm + " " + std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]));
      Tensor Y = ops::resize(X, sizes, "linear", ctm);
      Shape so = {2, 1, sizes[0], sizes[1]};
      ASSERT_EQ(Y.shape(), so);
      double sh = float(double(sizes[0]) / 5), sw = float(double(sizes[1]) / 4);
      auto ref = resize_ref(vx, s, sizes[0], sizes[1], sh, sw, "linear", ctm, "");
      test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
    }
}

TEST(Resize, Scales) {
  Shape s = {1, 1, 4, 5};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  for (auto sc : std::vector<std::vector<double>>{{2.0, 0.5}, {1.5, 2.5}, {0.5, 4.0}})
    for (std::string mode : {"nearest", "linear"}) {
      SCOPED_TRACE(mode);
      Tensor Y = ops::resize_scales(X, sc, mode, mode == "nearest" ? "asymmetric" : "half_pixel", "floor");
      int64_t OH = static_cast<int64_t>(std::floor(4 * sc[0])), OW = static_cast<int64_t>(std::floor(5 * sc[1]));
      Shape so = {1, 1, OH, OW};
      ASSERT_EQ(Y.shape(), so);
      auto ref = resize_ref(vx, s, OH, OW, float(sc[0]), float(sc[1]), mode, mode == "nearest" ? "asymmetric" : "half_pixel", "floor");
      test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
    }
}

TEST(Resize, Float16AndErrors) {
  Shape s = {1, 1, 3, 4};
  Tensor X = placeholder(s, float16(), "X");
  NDArray x = test::random(s, float16());
  Tensor Y = ops::resize(X, {6, 8}, "linear", "half_pixel");
  EXPECT_EQ(Y.dtype(), float16());
  test::expect_close(evaluate({Y}, {X}, {x})[0], resize_ref(test::to_vec(x), s, 6, 8, 2, 2, "linear", "half_pixel", ""), {1, 1, 6, 8}, float16());
  EXPECT_THROW(ops::resize(X, {6, 8}, "area"), AttributeError);
  EXPECT_THROW(ops::resize(X, {6, 8}, "nearest", "tf_crop_and_resize"), AttributeError);
  EXPECT_THROW(ops::resize(X, {6, 8}, "nearest", "half_pixel", "nearest_even"), AttributeError);
  EXPECT_THROW(ops::resize(X, {0, 8}), AttributeError);
  EXPECT_THROW(ops::resize_scales(X, {-1, 2}), AttributeError);
  EXPECT_THROW(ops::resize(placeholder({3, 4}, float32(), "R"), {6, 8}), ShapeError);
}

// 1-D ONNX interpolation of one output coordinate c over in samples (edge
// clamping; exclude_outside zeroes and renormalizes), written out directly.
double interp_1d(const std::function<double(int64_t)> &at, int64_t in, double c, const std::string &mode, double A, bool excl) {
  int64_t f = static_cast<int64_t>(std::floor(c));
  double t = c - f;
  std::vector<int64_t> idx;
  std::vector<double> w;
  if (mode == "linear") {
    idx = {f, f + 1};
    w = {1 - t, t};
  } else {
    auto k = [&](double d) {
      d = std::fabs(d);
      if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
      if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
      return 0.0;
    };
    idx = {f - 1, f, f + 1, f + 2};
    w = {k(1 + t), k(t), k(1 - t), k(2 - t)};
  }
  double sum = 0, acc = 0;
  for (size_t i = 0; i < idx.size(); i++) {
    if (excl && (idx[i] < 0 || idx[i] >= in)) w[i] = 0;
    sum += w[i];
  }
  for (size_t i = 0; i < idx.size(); i++)
    acc += (excl ? w[i] / sum : w[i]) * at(std::min<int64_t>(std::max<int64_t>(idx[i], 0), in - 1));
  return acc;
}

TEST(Resize, CubicOnHW) {
  Shape s = {1, 2, 5, 6};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  for (bool excl : {false, true})
    for (double A : {-0.75, -0.5})
      for (auto out : std::vector<std::vector<int64_t>>{{9, 4}, {3, 11}}) {
        SCOPED_TRACE(std::to_string(excl) + " " + std::to_string(A));
        ops::ResizeOptions o;
        o.mode = "cubic";
        o.cubic_coeff_a = A;
        o.exclude_outside = excl;
        Shape so = {1, 2, out[0], out[1]};
        Tensor Y = ops::resize_nd(X, so, {}, o);
        double sh = double(out[0]) / 5, sw = double(out[1]) / 6;
        std::vector<float> ref;
        for (int64_t c = 0; c < 2; c++)
          for (int64_t oh = 0; oh < out[0]; oh++)
            for (int64_t ow = 0; ow < out[1]; ow++) {
              double ch = (oh + 0.5) / sh - 0.5, cw = (ow + 0.5) / sw - 0.5;
              auto row = [&](int64_t h) {
                return interp_1d([&](int64_t w) { return double(vx[(c * 5 + h) * 6 + w]); }, 6, cw, "cubic", A, excl);
              };
              ref.push_back(static_cast<float>(interp_1d(row, 5, ch, "cubic", A, excl)));
            }
        test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
      }
}

TEST(Resize, CropAndResizeExtrapolates) {
  Shape s = {1, 1, 4, 4};
  Tensor X = placeholder(s, float32(), "X");
  NDArray x = test::random(s);
  auto vx = test::to_vec(x);
  ops::ResizeOptions o;
  o.mode = "linear";
  o.coordinate_transformation_mode = "tf_crop_and_resize";
  o.roi = {0, 0, 0.4, -0.2, 1, 1, 1.2, 0.7};  // the W crop starts left of the input: extrapolated
  o.extrapolation_value = 10;
  Shape so = {1, 1, 3, 3};
  Tensor Y = ops::resize_nd(X, so, {}, o);
  std::vector<float> ref;
  for (int64_t oh = 0; oh < 3; oh++)
    for (int64_t ow = 0; ow < 3; ow++) {
      double ch = 0.4 * 3 + oh * (1.2 - 0.4) * 3 / 2, cw = -0.2 * 3 + ow * (0.7 + 0.2) * 3 / 2;
      if (ch < 0 || ch > 3 || cw < 0 || cw > 3) {
        ref.push_back(10);
        continue;
      }
      auto row = [&](int64_t h) { return interp_1d([&](int64_t w) { return double(vx[h * 4 + w]); }, 4, cw, "linear", 0, false); };
      ref.push_back(static_cast<float>(interp_1d(row, 4, ch, "linear", 0, false)));
    }
  test::expect_close(evaluate({Y}, {X}, {x})[0], ref, so);
  o.roi.pop_back();
  EXPECT_THROW(ops::resize_nd(X, so, {}, o), AttributeError);
}

}  // namespace
}  // namespace tetune
