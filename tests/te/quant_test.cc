// tetune::ops linear quantization (ONNX QuantizeLinear family) vs plain loops.
#include <cmath>

#include "base/errors.h"
#include "te/ops/quant.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

// saturate(round_half_even(v) + zp) into [lo, hi]; std::nearbyint rounds half to even in the default mode.
double q_ref(double v, double zp, double lo, double hi) {
  double r = std::nearbyint(v);
  if (std::isnan(r)) r = 0;
  return std::min(std::max(r + zp, lo), hi);
}

TEST(Quant, QuantizePerTensorRoundsHalfToEvenAndSaturates) {
  Tensor X = placeholder({8}, float32(), "x"), S = placeholder({}, float32(), "s"), Z = placeholder({}, uint8(), "z");
  Tensor Y = ops::quantize_linear(X, S, Z);
  EXPECT_EQ(Y.dtype(), uint8());
  std::vector<float> xs = {0.5f, 1.5f, 2.5f, -0.5f, 1000.f, -1000.f, 3.2f, NAN};
  NDArray x = test::from_vec({8}, xs), s = test::from_vec({}, {1.f}), z = test::from_vec({}, {10.f}, uint8());
  std::vector<float> want;
  for (float v : xs) want.push_back(static_cast<float>(q_ref(v, 10, 0, 255)));
  // 0.5 -> 0 and 2.5 -> 2 (half to even), 1000 -> 255, -1000 -> 0, NaN -> the zero point.
  EXPECT_EQ(want[0], 10.f);
  EXPECT_EQ(want[2], 12.f);
  test::expect_close(evaluate({Y}, {X, S, Z}, {x, s, z})[0], want, {8}, uint8());
}

TEST(Quant, QuantizePerAxisAndBlockedInt8) {
  Shape xs = {2, 3, 4};
  Tensor X = placeholder(xs, float32(), "x");
  NDArray x = test::random(xs, float32(), 3, -40, 40);
  // Per axis 1.
  Tensor S = placeholder({3}, float32(), "s"), Z = placeholder({3}, int8(), "z");
  NDArray s = test::from_vec({3}, {0.25f, 0.5f, 0.125f}), z = test::from_vec({3}, {-3.f, 0.f, 7.f}, int8());
  std::vector<float> want;
  for (int64_t i = 0; i < x.size(); i++) {
    int64_t c = (i / 4) % 3;
    want.push_back(static_cast<float>(q_ref(x.get(i) / s.get(c), z.get(c), -128, 127)));
  }
  test::expect_close(evaluate({ops::quantize_linear(X, S, Z, int8(), 1)}, {X, S, Z}, {x, s, z})[0], want, xs, int8());
  // Blocks of 3 along the last axis (extent 4 -> 2 blocks, the second one partial).
  Tensor SB = placeholder({2, 3, 2}, float32(), "sb");
  NDArray sb = test::random({2, 3, 2}, float32(), 4, 0.1, 1.0);
  want.clear();
  for (int64_t i = 0; i < x.size(); i++) {
    int64_t k = i % 4, rest = i / 4;
    want.push_back(static_cast<float>(q_ref(float(x.get(i)) / float(sb.get(rest * 2 + k / 3)), 0, -128, 127)));
  }
  test::expect_close(evaluate({ops::quantize_linear(X, SB, Tensor(), int8(), -1, 3)}, {X, SB}, {x, sb})[0], want, xs, int8());
  EXPECT_THROW(ops::quantize_linear(X, placeholder({4}, float32(), "bad"), Tensor(), int8(), 1), ShapeError);
  EXPECT_THROW(ops::quantize_linear(X, S, Tensor(), int32(), 1), DTypeError);
}

TEST(Quant, DequantizeLinear) {
  Shape xs = {3, 5};
  Tensor X = placeholder(xs, uint8(), "x"), S = placeholder({3}, float32(), "s"), Z = placeholder({3}, uint8(), "z");
  NDArray x = test::random(xs, uint8(), 5, 0, 256);
  NDArray s = test::from_vec({3}, {0.5f, 2.f, 0.1f}), z = test::from_vec({3}, {0.f, 128.f, 255.f}, uint8());
  std::vector<float> want;
  for (int64_t i = 0; i < x.size(); i++) want.push_back(static_cast<float>((x.get(i) - z.get(i / 5)) * s.get(i / 5)));
  test::expect_close(evaluate({ops::dequantize_linear(X, S, Z, 0)}, {X, S, Z}, {x, s, z})[0], want, xs);
  EXPECT_THROW(ops::dequantize_linear(placeholder(xs, float32(), "f"), S, Tensor(), 0), DTypeError);
}

TEST(Quant, DynamicQuantizeLinear) {
  Shape xs = {4, 6};
  Tensor X = placeholder(xs, float32(), "x");
  for (auto range : {std::pair<double, double>{-2.0, 5.0}, {0.5, 3.0}, {-4.0, -1.0}}) {
    NDArray x = test::random(xs, float32(), 6, range.first, range.second);
    auto outs = ops::dynamic_quantize_linear(X);
    auto got = evaluate(outs, {X}, {x});
    float lo = 0, hi = 0;
    for (int64_t i = 0; i < x.size(); i++) {
      lo = std::min(lo, float(x.get(i)));
      hi = std::max(hi, float(x.get(i)));
    }
    float scale = (hi - lo) / 255.f;
    double zp = q_ref((0.f - lo) / scale, 0, 0, 255);
    EXPECT_FLOAT_EQ(static_cast<float>(got[1].get(0)), scale);
    EXPECT_EQ(got[2].get(0), zp);
    std::vector<float> want;
    for (int64_t i = 0; i < x.size(); i++) want.push_back(static_cast<float>(q_ref(float(x.get(i)) / scale, zp, 0, 255)));
    test::expect_close(got[0], want, xs, uint8());
  }
  // All zeros: scale 1, zero point 0 (no division by zero).
  auto got = evaluate(ops::dynamic_quantize_linear(X), {X}, {NDArray(xs, float32())});
  EXPECT_EQ(got[1].get(0), 1.0);
  EXPECT_EQ(got[2].get(0), 0.0);
}

TEST(Quant, MatMulIntegerPerRowAndColumnZeroPoints) {
  int64_t M = 5, K = 7, N = 3;
  Tensor A = placeholder({M, K}, uint8(), "a"), B = placeholder({K, N}, int8(), "b");
  Tensor AZ = placeholder({M}, uint8(), "az"), BZ = placeholder({N}, int8(), "bz");
  NDArray a = test::random({M, K}, uint8(), 7, 0, 256), b = test::random({K, N}, int8(), 8, -128, 128);
  NDArray az = test::random({M}, uint8(), 9, 0, 256), bz = test::random({N}, int8(), 10, -128, 128);
  Tensor C = ops::matmul_integer(A, B, AZ, BZ);
  EXPECT_EQ(C.dtype(), int32());
  std::vector<float> want;
  for (int64_t m = 0; m < M; m++)
    for (int64_t n = 0; n < N; n++) {
      int64_t s = 0;
      for (int64_t k = 0; k < K; k++)
        s += int64_t(a.get(m * K + k) - az.get(m)) * int64_t(b.get(k * N + n) - bz.get(n));
      want.push_back(static_cast<float>(s));
    }
  test::expect_close(evaluate({C}, {A, B, AZ, BZ}, {a, b, az, bz})[0], want, {M, N}, int32());
}

TEST(Quant, ConvIntegerPadsWithTheZeroPoint) {
  Tensor X = placeholder({1, 2, 4, 4}, uint8(), "x"), W = placeholder({3, 2, 3, 3}, uint8(), "w");
  Tensor XZ = placeholder({}, uint8(), "xz"), WZ = placeholder({3}, uint8(), "wz");
  NDArray x = test::random({1, 2, 4, 4}, uint8(), 11, 0, 256), w = test::random({3, 2, 3, 3}, uint8(), 12, 0, 256);
  NDArray xz = test::from_vec({}, {100.f}, uint8()), wz = test::from_vec({3}, {0.f, 128.f, 255.f}, uint8());
  Tensor Y = ops::conv2d_integer(X, W, XZ, WZ, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  std::vector<float> want;
  for (int o = 0; o < 3; o++)
    for (int h = 0; h < 4; h++)
      for (int wi = 0; wi < 4; wi++) {
        int64_t s = 0;
        for (int c = 0; c < 2; c++)
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              int ih = h + ky - 1, iw = wi + kx - 1;
              // Outside the image x is its zero point: the shifted value is 0.
              int64_t xv = (ih < 0 || ih >= 4 || iw < 0 || iw >= 4) ? 0 : int64_t(x.get((c * 4 + ih) * 4 + iw)) - 100;
              s += xv * (int64_t(w.get(((o * 2 + c) * 3 + ky) * 3 + kx)) - int64_t(wz.get(o)));
            }
        want.push_back(static_cast<float>(s));
      }
  test::expect_close(evaluate({Y}, {X, W, XZ, WZ}, {x, w, xz, wz})[0], want, {1, 3, 4, 4}, int32());
  EXPECT_THROW(ops::conv2d_integer(X, W, placeholder({2}, uint8(), "bad"), WZ, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1), ShapeError);
}

TEST(Quant, RequantizePerChannel) {
  Tensor Acc = placeholder({2, 3}, int32(), "acc"), SA = placeholder({}, float32(), "sa");
  Tensor SW = placeholder({3}, float32(), "sw"), SY = placeholder({}, float32(), "sy"), ZY = placeholder({}, int8(), "zy");
  NDArray acc = test::from_vec({2, 3}, {100.f, -300.f, 5000.f, -7.f, 0.f, 123456.f}, int32());
  NDArray sa = test::from_vec({}, {0.02f}), sw = test::from_vec({3}, {0.5f, 0.25f, 0.01f});
  NDArray sy = test::from_vec({}, {0.1f}), zy = test::from_vec({}, {-5.f}, int8());
  Tensor Y = ops::requantize(Acc, SA, SW, SY, ZY, int8(), 1);
  std::vector<float> want;
  for (int64_t i = 0; i < 6; i++) {
    float m = float(sa.get(0)) * float(sw.get(i % 3)) / float(sy.get(0));
    want.push_back(static_cast<float>(q_ref(float(acc.get(i)) * m, -5, -128, 127)));
  }
  test::expect_close(evaluate({Y}, {Acc, SA, SW, SY, ZY}, {acc, sa, sw, sy, zy})[0], want, {2, 3}, int8());
}

}  // namespace
}  // namespace tetune
