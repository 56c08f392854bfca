// tetune::ops roi_align and max_unpool vs plain loops written from the ONNX
// spec and onnxruntime's CPU kernels (roialign.cc, max_unpool.cc).
#include <algorithm>
#include <cmath>

#include "base/errors.h"
#include "te/ops/max_unpool.h"
#include "te/ops/roi_align.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;
using test::expect_close;
using test::from_vec;
using test::random;

// ---- RoiAlign, as onnxruntime's kernel --------------------------------------
std::vector<float> roi_align_ref(const NDArray &x, const Shape &xs, const std::vector<float> &rois, const std::vector<int64_t> &bi,
                                 bool avg, int64_t OH, int64_t OW, int64_t sr, double scale, bool half_pixel) {
  int64_t C = xs[1], H = xs[2], W = xs[3];
  double off = half_pixel ? 0.5 : 0.0;
  std::vector<float> y;
  for (size_t r = 0; r < bi.size(); r++) {
    double sw = rois[4 * r] * scale - off, sh = rois[4 * r + 1] * scale - off;
    double rw = rois[4 * r + 2] * scale - off - sw, rh = rois[4 * r + 3] * scale - off - sh;
    if (!half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    double bh = rh / OH, bw = rw / OW;
    int64_t gh = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rh / OH)), gw = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rw / OW));
    for (int64_t c = 0; c < C; c++)
      for (int64_t ph = 0; ph < OH; ph++)
        for (int64_t pw = 0; pw < OW; pw++) {
          double out = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; iy++)
            for (int64_t ix = 0; ix < gw; ix++) {
              double yy = sh + ph * bh + (iy + 0.5) * bh / gh, xx = sw + pw * bw + (ix + 0.5) * bw / gw;
              double val = 0;
              if (!(yy < -1.0 || yy > H || xx < -1.0 || xx > W)) {
                yy = std::max(yy, 0.0), xx = std::max(xx, 0.0);
                int64_t yl = static_cast<int64_t>(yy), xl = static_cast<int64_t>(xx), yh, xh;
                if (yl >= H - 1) yh = yl = H - 1, yy = static_cast<double>(yl); else yh = yl + 1;
                if (xl >= W - 1) xh = xl = W - 1, xx = static_cast<double>(xl); else xh = xl + 1;
                double ly = yy - yl, lx = xx - xl, hy = 1 - ly, hx = 1 - lx;
                auto v = [&](int64_t a, int64_t b) { return x.get(((bi[r] * C + c) * H + a) * W + b); };
                double t[4] = {hy * hx * v(yl, xl), hy * lx * v(yl, xh), ly * hx * v(yh, xl), ly * lx * v(yh, xh)};
                val = avg ? t[0] + t[1] + t[2] + t[3] : std::max({t[0], t[1], t[2], t[3]});
              }
              if (avg) out += val;
              else out = first ? val : std::max(out, val), first = false;
            }
          if (avg) out /= std::max<int64_t>(gh * gw, 1);
          y.push_back(static_cast<float>(out));
        }
  }
  return y;
}

struct RoiCase {
  std::string mode, ctm;
  int64_t sampling_ratio;
  double scale;
};

class RoiAlignTest : public ::testing::TestWithParam<RoiCase> {};

TEST_P(RoiAlignTest, MatchesOnnxruntimeKernel) {
  RoiCase k = GetParam();
  Shape xs = {2, 3, 9, 11};
  // a roi inside, one crossing the border, one past it, one of zero size (empty adaptive grid for half_pixel)
  std::vector<float> rv = {1, 2, 7, 8, -3, 4, 14, 20, 12, 12, 30, 30, 4, 4, 4, 4};
  std::vector<int64_t> bv = {0, 1, 1, 0};
  Tensor x = placeholder(xs, float32(), "x"), rois = placeholder({4, 4}, float32(), "rois"), bi = placeholder({4}, int64(), "bi");
  NDArray xd = random(xs, float32(), 7), rd = from_vec({4, 4}, rv), bd = from_vec({4}, {0, 1, 1, 0}, int64());
  Tensor y = ops::roi_align(x, rois, bi, k.mode, 3, 4, k.sampling_ratio, k.scale, k.ctm);
  auto out = evaluate({y}, {x, rois, bi}, {xd, rd, bd});
  expect_close(out[0], roi_align_ref(xd, xs, rv, bv, k.mode == "avg", 3, 4, k.sampling_ratio, k.scale, k.ctm == "half_pixel"),
               {4, 3, 3, 4});
}

INSTANTIATE_TEST_SUITE_P(Modes, RoiAlignTest,
                         ::testing::Values(RoiCase{"avg", "half_pixel", 0, 1.0}, RoiCase{"avg", "output_half_pixel", 2, 0.5},
                                           RoiCase{"max", "half_pixel", 2, 1.0}, RoiCase{"max", "output_half_pixel", 0, 0.5}));

TEST(RoiAlign, RejectsBadModesAndShapes) {
  Tensor x = placeholder({1, 1, 4, 4}, float32(), "x"), bi = placeholder({2}, int64(), "bi");
  EXPECT_THROW(ops::roi_align(x, placeholder({2, 4}, float32(), "r"), bi, "min"), AttributeError);
  EXPECT_THROW(ops::roi_align(x, placeholder({2, 5}, float32(), "r"), bi), ShapeError);
  EXPECT_THROW(ops::roi_align(x, placeholder({2, 4}, float64(), "r"), bi), DTypeError);
}

// ---- MaxUnpool ----------------------------------------------------------------
TEST(MaxUnpool, OnnxSpecExample) {
  Tensor x = placeholder({1, 1, 2, 2}, float32(), "x"), i = placeholder({1, 1, 2, 2}, int64(), "i");
  auto y = evaluate({ops::max_unpool(x, i, {2, 2}, {2, 2}, {0, 0, 0, 0})}, {x, i},
                    {from_vec({1, 1, 2, 2}, {5, 6, 7, 8}), from_vec({1, 1, 2, 2}, {5, 7, 13, 15}, int64())});
  expect_close(y[0], {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8}, {1, 1, 4, 4});
}

// Overlapping padded windows (kernel 3, stride 2): indices from a reference max pool, then a
// scatter; output_shape one larger than the default, so flat indices use the wider row.
TEST(MaxUnpool, InvertsOverlappingPaddedMaxPoolIndices) {
  Shape xs = {2, 3, 7, 8}, out = {2, 3, 8, 9};
  int64_t K = 3, S = 2, P = 1, PH = 4, PW = 4;
  NDArray src = random(out, float32(), 5);
  std::vector<float> pooled, flat;
  for (int64_t nc = 0; nc < 6; nc++)
    for (int64_t ph = 0; ph < PH; ph++)
      for (int64_t pw = 0; pw < PW; pw++) {
        double best = -1e30;
        int64_t at = -1;
        for (int64_t a = 0; a < K; a++)
          for (int64_t b = 0; b < K; b++) {
            int64_t h = ph * S - P + a, w = pw * S - P + b;
            if (h < 0 || h >= xs[2] || w < 0 || w >= xs[3]) continue;
            int64_t f = (nc * out[2] + h) * out[3] + w;
            if (src.get(f) > best) best = src.get(f), at = f;
          }
        pooled.push_back(static_cast<float>(best));
        flat.push_back(static_cast<float>(at));
      }
  std::vector<float> ref(static_cast<size_t>(test::numel(out)), 0.0f);
  for (size_t k = 0; k < flat.size(); k++) ref[static_cast<size_t>(flat[k])] = pooled[k];
  Shape ps = {2, 3, PH, PW};
  Tensor x = placeholder(ps, float32(), "x"), i = placeholder(ps, int64(), "i");
  auto y = evaluate({ops::max_unpool(x, i, {K, K}, {S, S}, {P, P, P, P}, {out[2], out[3]})}, {x, i},
                    {from_vec(ps, pooled), from_vec(ps, flat, int64())});
  expect_close(y[0], ref, out);
}

TEST(MaxUnpool, RejectsBadIndicesAndAttributes) {
  Tensor x = placeholder({1, 1, 2, 2}, float32(), "x");
  EXPECT_THROW(ops::max_unpool(x, placeholder({1, 1, 2, 2}, float32(), "i"), {2, 2}, {2, 2}, {0, 0, 0, 0}), DTypeError);
  EXPECT_THROW(ops::max_unpool(x, placeholder({1, 1, 2, 3}, int64(), "i"), {2, 2}, {2, 2}, {0, 0, 0, 0}), ShapeError);
  EXPECT_THROW(ops::max_unpool(x, placeholder({1, 1, 2, 2}, int64(), "i"), {2}, {2, 2}, {0, 0, 0, 0}), AttributeError);
}

}  // namespace
}  // namespace tetune
