// tetune::ops conv2d / conv2d_transpose vs plain loops.
#include "base/errors.h"
#include "te/ops/conv.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

struct ConvCase {
  int64_t N, C, H, W, O, KH, KW;
  std::vector<int64_t> strides, pads, dil;
  int64_t groups;
  bool bias;
};

std::vector<float> conv_ref(const std::vector<float> &x, const std::vector<float> &w, const std::vector<float> &b,
                            const ConvCase &c, int64_t OH, int64_t OW) {
  int64_t CG = c.C / c.groups, OG = c.O / c.groups;
  std::vector<float> y(c.N * c.O * OH * OW);
  for (int64_t n = 0; n < c.N; n++)
    for (int64_t o = 0; o < c.O; o++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double s = c.bias ? b[o] : 0;
          int64_t g = o / OG;
          for (int64_t rc = 0; rc < CG; rc++)
            for (int64_t ky = 0; ky < c.KH; ky++)
              for (int64_t kx = 0; kx < c.KW; kx++) {
                int64_t ih = oh * c.strides[0] - c.pads[0] + ky * c.dil[0];
                int64_t iw = ow * c.strides[1] - c.pads[1] + kx * c.dil[1];
                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                int64_t ci = g * CG + rc;
                s += double(x[((n * c.C + ci) * c.H + ih) * c.W + iw]) * w[((o * CG + rc) * c.KH + ky) * c.KW + kx];
              }
          y[((n * c.O + o) * OH + oh) * OW + ow] = static_cast<float>(s);
        }
  return y;
}

TEST(Conv2d, Cases) {
  std::vector<ConvCase> cases = {
      {1, 3, 7, 9, 4, 3, 3, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, false},
      {2, 3, 7, 9, 4, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true},
      {1, 2, 9, 8, 3, 3, 2, {2, 3}, {1, 0, 2, 1}, {1, 1}, 1, false},   // strides, asymmetric pads
      {1, 2, 9, 9, 2, 3, 3, {1, 1}, {2, 2, 2, 2}, {2, 2}, 1, true},    // dilation
      {1, 2, 11, 10, 2, 2, 3, {2, 1}, {0, 1, 1, 0}, {3, 2}, 1, false}, // dilation + stride
      {1, 4, 6, 7, 6, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2, true},    // groups
      {2, 4, 7, 6, 4, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 4, true},    // depthwise
      {1, 3, 5, 5, 6, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 3, false},   // grouped 1x1, channel multiplier 2
  };
  for (auto &c : cases) {
    SCOPED_TRACE("C=" + std::to_string(c.C) + " O=" + std::to_string(c.O) + " groups=" + std::to_string(c.groups));
    Tensor X = placeholder({c.N, c.C, c.H, c.W}, float32(), "X");
    Tensor Wt = placeholder({c.O, c.C / c.groups, c.KH, c.KW}, float32(), "W");
    Tensor B = c.bias ? placeholder({c.O}, float32(), "B") : Tensor();
    Tensor Y = ops::conv2d(X, Wt, B, c.strides, c.pads, c.dil, c.groups, "conv");
    int64_t OH = (c.H + c.pads[0] + c.pads[2] - c.dil[0] * (c.KH - 1) - 1) / c.strides[0] + 1;
    int64_t OW = (c.W + c.pads[1] + c.pads[3] - c.dil[1] * (c.KW - 1) - 1) / c.strides[1] + 1;
    Shape so = {c.N, c.O, OH, OW};
    ASSERT_EQ(Y.shape(), so);
    NDArray x = test::random(X.shape(), float32(), 1), w = test::random(Wt.shape(), float32(), 2), b = test::random({c.O}, float32(), 3);
    auto ref = conv_ref(test::to_vec(x), test::to_vec(w), test::to_vec(b), c, OH, OW);
    auto out = c.bias ? evaluate({Y}, {X, Wt, B}, {x, w, b}) : evaluate({Y}, {X, Wt}, {x, w});
    test::expect_close(out[0], ref, so);
    // Stage structure.
    bool padded = c.pads[0] || c.pads[1] || c.pads[2] || c.pads[3];
    Tensor conv = c.bias ? Y.inputs()[0] : Y;
    EXPECT_EQ(conv->tag, "conv2d");
    EXPECT_EQ(conv.name(), c.bias ? "conv.conv" : "conv");
    EXPECT_EQ(conv.inputs()[0].name(), padded ? "conv.pad" : "X");
    EXPECT_EQ(conv->body->reduce_axes[0].var.name(), "rc");
    EXPECT_EQ(conv->attrs.at("groups"), std::to_string(c.groups));
  }
}

TEST(Conv2d, Errors) {
  Tensor X = placeholder({1, 4, 5, 5}, float32(), "X");
  EXPECT_THROW(ops::conv2d(X, placeholder({2, 3, 3, 3}, float32(), "W")), ShapeError);
  EXPECT_THROW(ops::conv2d(X, placeholder({3, 2, 3, 3}, float32(), "W"), Tensor(), {1, 1}, {0, 0, 0, 0}, {1, 1}, 2), AttributeError);
  EXPECT_THROW(ops::conv2d(X, placeholder({2, 4, 3, 3}, float32(), "W"), Tensor(), {0, 1}), AttributeError);
  EXPECT_THROW(ops::conv2d(X, placeholder({2, 4, 3, 3}, float32(), "W"), Tensor(), {1, 1}, {-1, 0, 0, 0}), AttributeError);
  EXPECT_THROW(ops::conv2d(X, placeholder({2, 4, 7, 3}, float32(), "W")), ShapeError);
}

// The blocked conv equals the NCHW conv on the same numbers, re-laid out:
// x[n, c / cb, h, w, c % cb], w[o / ob, c / cb, ky, kx, c % cb, o % ob].
// With groups (of whole blocks), each output block reads only its group's input blocks.
TEST(Conv2dNchwc, MatchesNchwConvInBlockedLayouts) {
  struct Case {
    int64_t N, C, H, W, O, K, cb, ob, stride, pad, groups;
  };
  for (const Case &k : {Case{1, 8, 7, 9, 6, 3, 4, 3, 1, 1, 1}, Case{2, 4, 8, 6, 4, 3, 2, 4, 2, 0, 1},
                        Case{1, 6, 5, 5, 4, 1, 3, 2, 1, 0, 1}, Case{1, 8, 6, 5, 8, 3, 2, 2, 1, 1, 2},
                        Case{1, 8, 7, 6, 4, 3, 2, 1, 2, 1, 4}}) {
    SCOPED_TRACE("C=" + std::to_string(k.C) + " cb=" + std::to_string(k.cb) + " stride=" + std::to_string(k.stride) +
                 " groups=" + std::to_string(k.groups));
    ConvCase c{k.N, k.C, k.H, k.W, k.O, k.K, k.K, {k.stride, k.stride}, {k.pad, k.pad, k.pad, k.pad}, {1, 1}, k.groups, false};
    const int64_t CG = k.C / k.groups;
    int64_t OH = (k.H + 2 * k.pad - k.K) / k.stride + 1, OW = (k.W + 2 * k.pad - k.K) / k.stride + 1;
    NDArray x = test::random({k.N, k.C, k.H, k.W}, float32(), 7), w = test::random({k.O, CG, k.K, k.K}, float32(), 8);
    std::vector<float> vx = test::to_vec(x), vw = test::to_vec(w);
    std::vector<float> ref = conv_ref(vx, vw, {}, c, OH, OW);
    std::vector<float> bx(vx.size()), bw(vw.size()), bref(ref.size());
    for (int64_t n = 0; n < k.N; n++)
      for (int64_t ch = 0; ch < k.C; ch++)
        for (int64_t i = 0; i < k.H * k.W; i++)
          bx[((n * (k.C / k.cb) + ch / k.cb) * k.H * k.W + i) * k.cb + ch % k.cb] = vx[(n * k.C + ch) * k.H * k.W + i];
    for (int64_t o = 0; o < k.O; o++)
      for (int64_t ch = 0; ch < CG; ch++)  // ch: the input channel within o's group
        for (int64_t t = 0; t < k.K * k.K; t++)
          bw[(((o / k.ob * (CG / k.cb) + ch / k.cb) * k.K * k.K + t) * k.cb + ch % k.cb) * k.ob + o % k.ob] =
              vw[(o * CG + ch) * k.K * k.K + t];
    for (int64_t n = 0; n < k.N; n++)
      for (int64_t o = 0; o < k.O; o++)
        for (int64_t i = 0; i < OH * OW; i++)
          bref[((n * (k.O / k.ob) + o / k.ob) * OH * OW + i) * k.ob + o % k.ob] = ref[(n * k.O + o) * OH * OW + i];
    Tensor X = placeholder({k.N, k.C / k.cb, k.H, k.W, k.cb}, float32(), "X");
    Tensor Wt = placeholder({k.O / k.ob, CG / k.cb, k.K, k.K, k.cb, k.ob}, float32(), "W");
    Tensor Y = ops::conv2d_nchwc(X, Wt, {k.stride, k.stride}, {k.pad, k.pad, k.pad, k.pad}, "conv", k.groups);
    Shape so = {k.N, k.O / k.ob, OH, OW, k.ob};
    ASSERT_EQ(Y.shape(), so);
    auto out = evaluate({Y}, {X, Wt}, {test::from_vec(X.shape(), bx), test::from_vec(Wt.shape(), bw)});
    test::expect_close(out[0], bref, so);
    EXPECT_EQ(Y->tag, "conv2d_nchwc");
    EXPECT_EQ(Y.inputs()[0].name(), k.pad ? "conv.pad" : "X");
    ASSERT_EQ(Y->body->reduce_axes.size(), 4u);
    EXPECT_EQ(Y->body->reduce_axes[2].var.name(), "rci");
    EXPECT_EQ(Y->body->reduce_axes[3].var.name(), "rx") << "the column tap reduces innermost";
  }
}

// The blocked depthwise conv equals the grouped NCHW conv (groups = C) re-laid out.
TEST(DepthwiseConv2dNchwc, MatchesNchwDepthwiseConv) {
  struct Case {
    int64_t N, C, H, W, K, b, stride, pad, dil;
  };
  for (const Case &k : {Case{1, 8, 7, 9, 3, 4, 1, 1, 1}, Case{2, 6, 8, 6, 3, 3, 2, 1, 1}, Case{1, 4, 9, 9, 5, 2, 1, 2, 2},
                        Case{1, 4, 6, 7, 3, 4, 2, 0, 1}}) {
    SCOPED_TRACE("C=" + std::to_string(k.C) + " b=" + std::to_string(k.b) + " stride=" + std::to_string(k.stride) +
                 " dil=" + std::to_string(k.dil));
    ConvCase c{k.N, k.C, k.H, k.W, k.C, k.K, k.K, {k.stride, k.stride}, {k.pad, k.pad, k.pad, k.pad}, {k.dil, k.dil}, k.C, false};
    const int64_t ek = k.dil * (k.K - 1) + 1;
    const int64_t OH = (k.H + 2 * k.pad - ek) / k.stride + 1, OW = (k.W + 2 * k.pad - ek) / k.stride + 1;
    NDArray x = test::random({k.N, k.C, k.H, k.W}, float32(), 7), w = test::random({k.C, 1, k.K, k.K}, float32(), 8);
    std::vector<float> vx = test::to_vec(x), vw = test::to_vec(w);
    std::vector<float> ref = conv_ref(vx, vw, {}, c, OH, OW);
    Tensor X = placeholder({k.N, k.C / k.b, k.H, k.W, k.b}, float32(), "X");
    Tensor Wt = placeholder({k.C / k.b, k.K, k.K, k.b}, float32(), "W");
    Tensor Y = ops::depthwise_conv2d_nchwc(X, Wt, {k.stride, k.stride}, {k.pad, k.pad, k.pad, k.pad}, {k.dil, k.dil}, "dw");
    Shape so = {k.N, k.C / k.b, OH, OW, k.b};
    ASSERT_EQ(Y.shape(), so);
    auto out = evaluate({Y}, {X, Wt},
                        {test::from_vec(X.shape(), test::to_blocked(vx, k.N, k.C, k.H * k.W, k.b)),
                         test::from_vec(Wt.shape(), test::to_blocked(vw, 1, k.C, k.K * k.K, k.b))});
    test::expect_close(out[0], test::to_blocked(ref, k.N, k.C, OH * OW, k.b), so);
    EXPECT_EQ(Y->tag, "depthwise_conv2d_nchwc");
  }
}

TEST(DepthwiseConv2dNchwc, Errors) {
  Tensor X = placeholder({1, 2, 5, 5, 4}, float32(), "X");
  EXPECT_THROW(ops::depthwise_conv2d_nchwc(X, placeholder({3, 3, 3, 4}, float32(), "W")), ShapeError);  // 3 blocks
  EXPECT_THROW(ops::depthwise_conv2d_nchwc(X, placeholder({2, 3, 3, 8}, float32(), "W")), ShapeError);  // block 8 vs 4
  EXPECT_THROW(ops::depthwise_conv2d_nchwc(X, placeholder({2, 7, 3, 4}, float32(), "W")), ShapeError);  // kernel > input
  EXPECT_THROW(ops::depthwise_conv2d_nchwc(X, placeholder({2, 3, 3, 4}, float32(), "W"), {1, 1}, {0, 0, 0, 0}, {0, 1}),
               AttributeError);
  EXPECT_THROW(ops::depthwise_conv2d_nchwc(placeholder({1, 8, 5, 5}, float32(), "X4"), placeholder({2, 3, 3, 4}, float32(), "W")),
               ShapeError);  // rank 4
}

TEST(Conv2dNchwc, Errors) {
  Tensor X = placeholder({1, 2, 5, 5, 4}, float32(), "X");
  EXPECT_THROW(ops::conv2d_nchwc(X, placeholder({2, 3, 3, 3, 4, 8}, float32(), "W")), ShapeError);  // 3 input blocks
  EXPECT_THROW(ops::conv2d_nchwc(X, placeholder({2, 2, 3, 3, 8, 8}, float32(), "W")), ShapeError);  // block 8 vs 4
  EXPECT_THROW(ops::conv2d_nchwc(X, placeholder({2, 2, 7, 3, 4, 8}, float32(), "W")), ShapeError);  // kernel > input
  EXPECT_THROW(ops::conv2d_nchwc(X, placeholder({2, 2, 3, 3, 4, 8}, float32(), "W"), {0, 1}), AttributeError);
  EXPECT_THROW(ops::conv2d_nchwc(X, placeholder({3, 1, 3, 3, 4, 8}, float32(), "W"), {1, 1}, {0, 0, 0, 0}, "c", 2),
               AttributeError);  // 2 groups of 3 output blocks
  EXPECT_THROW(ops::conv2d_nchwc(X, placeholder({2, 2, 3, 3, 4, 8}, float32(), "W"), {1, 1}, {0, 0, 0, 0}, "c", 2),
               ShapeError);  // 2 groups read 1 input block each, not 2
  EXPECT_THROW(ops::conv2d_nchwc(placeholder({1, 8, 5, 5}, float32(), "X4"), placeholder({2, 2, 3, 3, 4, 8}, float32(), "W")),
               ShapeError);  // rank 4
}

struct TCase {
  int64_t N, C, H, W, O, KH, KW;
  std::vector<int64_t> strides, pads, dil, opad;
  int64_t groups;
  bool bias;
};

TEST(Conv2dTranspose, Cases) {
  std::vector<TCase> cases = {
      {1, 2, 4, 5, 3, 3, 3, {1, 1}, {0, 0, 0, 0}, {1, 1}, {0, 0}, 1, false},
      {1, 2, 4, 5, 3, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 0}, 1, true},
      {2, 3, 3, 4, 2, 2, 3, {3, 2}, {0, 1, 2, 0}, {1, 1}, {2, 1}, 1, false},   // asymmetric pads, output_padding
      {1, 2, 4, 4, 2, 3, 2, {2, 1}, {1, 0, 0, 1}, {2, 3}, {0, 0}, 1, true},    // dilation
      {1, 4, 3, 5, 6, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, {0, 1}, 2, true},    // groups
      {1, 3, 4, 4, 3, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 3, false},   // depthwise
      // Kernel = stride (one tap per output pixel: the direct form, no pad stage).
      {1, 4, 3, 5, 3, 2, 2, {2, 2}, {0, 0, 0, 0}, {1, 1}, {0, 0}, 1, true},    // PP-OCR det's 2x upsampling
      {2, 4, 3, 3, 6, 3, 2, {3, 2}, {1, 0, 2, 1}, {1, 1}, {0, 0}, 2, false},   // pads, groups
      {1, 2, 2, 3, 2, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, {0, 0}, 1, false},   // 1x1
  };
  for (auto &c : cases) {
    SCOPED_TRACE("stride " + std::to_string(c.strides[0]) + " groups " + std::to_string(c.groups));
    int64_t OG = c.O / c.groups, CG = c.C / c.groups;
    Tensor X = placeholder({c.N, c.C, c.H, c.W}, float32(), "X");
    Tensor Wt = placeholder({c.C, OG, c.KH, c.KW}, float32(), "W");
    Tensor B = c.bias ? placeholder({c.O}, float32(), "B") : Tensor();
    Tensor Y = ops::conv2d_transpose(X, Wt, B, c.strides, c.pads, c.dil, c.opad, c.groups);
    int64_t OH = c.strides[0] * (c.H - 1) + c.opad[0] + c.dil[0] * (c.KH - 1) + 1 - c.pads[0] - c.pads[2];
    int64_t OW = c.strides[1] * (c.W - 1) + c.opad[1] + c.dil[1] * (c.KW - 1) + 1 - c.pads[1] - c.pads[3];
    Shape so = {c.N, c.O, OH, OW};
    ASSERT_EQ(Y.shape(), so);
    NDArray x = test::random(X.shape(), float32(), 4), w = test::random(Wt.shape(), float32(), 5), b = test::random({c.O}, float32(), 6);
    auto vx = test::to_vec(x), vw = test::to_vec(w), vb = test::to_vec(b);
    // Scatter formulation: every input pixel adds its kernel footprint.
    std::vector<double> acc(test::numel(so), 0);
    for (int64_t n = 0; n < c.N; n++)
      for (int64_t ci = 0; ci < c.C; ci++)
        for (int64_t ih = 0; ih < c.H; ih++)
          for (int64_t iw = 0; iw < c.W; iw++)
            for (int64_t oc = 0; oc < OG; oc++)
              for (int64_t ky = 0; ky < c.KH; ky++)
                for (int64_t kx = 0; kx < c.KW; kx++) {
                  int64_t oh = ih * c.strides[0] + ky * c.dil[0] - c.pads[0];
                  int64_t ow = iw * c.strides[1] + kx * c.dil[1] - c.pads[1];
                  if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                  int64_t o = (ci / CG) * OG + oc;
                  acc[((n * c.O + o) * OH + oh) * OW + ow] +=
                      double(vx[((n * c.C + ci) * c.H + ih) * c.W + iw]) * vw[((ci * OG + oc) * c.KH + ky) * c.KW + kx];
                }
    std::vector<float> ref(acc.size());
    for (size_t i = 0; i < acc.size(); i++) ref[i] = static_cast<float>(acc[i] + (c.bias ? vb[(i / (OH * OW)) % c.O] : 0));
    auto out = c.bias ? evaluate({Y}, {X, Wt, B}, {x, w, b}) : evaluate({Y}, {X, Wt}, {x, w});
    test::expect_close(out[0], ref, so);
    // Stage structure: the direct form reads x itself and reduces over rc only.
    bool direct = c.KH == c.strides[0] && c.KW == c.strides[1] && c.dil == std::vector<int64_t>{1, 1} &&
                  c.opad == std::vector<int64_t>{0, 0};
    Tensor conv = c.bias ? Y.inputs()[0] : Y;
    EXPECT_EQ(conv->tag, "conv2d_transpose");
    EXPECT_EQ(conv.inputs()[0].name(), direct ? "X" : conv.name().substr(0, conv.name().find('.')) + ".pad");
    EXPECT_EQ(conv->body->reduce_axes.size(), direct ? 1u : 3u);
  }
  Tensor X = placeholder({1, 2, 4, 4}, float32(), "X");
  EXPECT_THROW(ops::conv2d_transpose(X, placeholder({2, 2, 3, 3}, float32(), "W"), Tensor(), {1, 1}, {0, 0, 0, 0}, {1, 1}, {1, 1}), AttributeError);
  EXPECT_THROW(ops::conv2d_transpose(X, placeholder({3, 2, 3, 3}, float32(), "W")), ShapeError);
}

}  // namespace
}  // namespace tetune
