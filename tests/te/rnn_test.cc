// tetune::ops rnn_cell / lstm_cell / gru_cell (one time step) vs plain loops
// written from the ONNX RNN / LSTM / GRU equations.
#include <cmath>

#include "base/errors.h"
#include "te/ops/rnn.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;
using V = std::vector<float>;

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double clipv(double x, double c) { return c > 0 ? std::max(-c, std::min(c, x)) : x; }

// gates[b][j] = xw[b][j] + sum_k h[b][k] r[j][k]
std::vector<double> gates_ref(const V &xw, const V &h, const V &r, int64_t B, int64_t H, int64_t G) {
  std::vector<double> g(B * G * H);
  for (int64_t b = 0; b < B; b++)
    for (int64_t j = 0; j < G * H; j++) {
      double s = xw[b * G * H + j];
      for (int64_t k = 0; k < H; k++) s += double(h[b * H + k]) * r[k * G * H + j];
      g[b * G * H + j] = s;
    }
  return g;
}

TEST(RnnCell, TanhAndClip) {
  const int64_t B = 3, H = 5;
  for (double clip : {0.0, 0.7}) {
    Tensor XW = placeholder({B, H}, float32(), "xw"), Hp = placeholder({B, H}, float32(), "h"), R = placeholder({H, H}, float32(), "rt");
    Tensor y = ops::rnn_cell(XW, Hp, R, ops::rnn_activation("Tanh"), clip);
    NDArray xw = test::random({B, H}, float32(), 1, -2, 2), h = test::random({B, H}, float32(), 2), r = test::random({H, H}, float32(), 3);
    auto out = evaluate({y}, {XW, Hp, R}, {xw, h, r});
    auto g = gates_ref(test::to_vec(xw), test::to_vec(h), test::to_vec(r), B, H, 1);
    V ref;
    for (double v : g) ref.push_back(static_cast<float>(std::tanh(clipv(v, clip))));
    test::expect_close(out[0], ref, {B, H});
  }
}

TEST(LstmCell, GatesPeepholesAndState) {
  const int64_t B = 2, H = 4;
  for (bool peep : {false, true}) {
    SCOPED_TRACE(peep ? "peepholes" : "no peepholes");
    Tensor XW = placeholder({B, 4 * H}, float32(), "xw"), Hp = placeholder({B, H}, float32(), "h"),
           Cp = placeholder({B, H}, float32(), "c"), R = placeholder({H, 4 * H}, float32(), "rt"),
           P = placeholder({3 * H}, float32(), "p");
    std::vector<ops::RnnActivation> acts = {ops::rnn_activation("Sigmoid"), ops::rnn_activation("Tanh"), ops::rnn_activation("Tanh")};
    auto hc = ops::lstm_cell(XW, Hp, Cp, R, peep ? P : Tensor(), acts, 0);
    NDArray xw = test::random({B, 4 * H}, float32(), 4, -2, 2), h = test::random({B, H}, float32(), 5),
            c = test::random({B, H}, float32(), 6, -3, 3), r = test::random({H, 4 * H}, float32(), 7),
            p = test::random({3 * H}, float32(), 8);
    std::vector<Tensor> ins = {XW, Hp, Cp, R};
    std::vector<NDArray> data = {xw, h, c, r};
    if (peep) ins.push_back(P), data.push_back(p);
    auto out = evaluate(hc, ins, data);
    auto g = gates_ref(test::to_vec(xw), test::to_vec(h), test::to_vec(r), B, H, 4);
    V vc = test::to_vec(c), vp = test::to_vec(p), href, cref;
    for (int64_t b = 0; b < B; b++)
      for (int64_t j = 0; j < H; j++) {
        auto G = [&](int k) { return g[b * 4 * H + k * H + j]; };
        double cp = vc[b * H + j];
        double pi = peep ? vp[j] : 0, po = peep ? vp[H + j] : 0, pf = peep ? vp[2 * H + j] : 0;
        double i = sig(G(0) + pi * cp), f = sig(G(2) + pf * cp), cand = std::tanh(G(3));
        double ct = f * cp + i * cand;
        double o = sig(G(1) + po * ct);
        cref.push_back(static_cast<float>(ct));
        href.push_back(static_cast<float>(o * std::tanh(ct)));
      }
    test::expect_close(out[0], href, {B, H});
    test::expect_close(out[1], cref, {B, H});
  }
}

TEST(GruCell, LinearBeforeResetBothWays) {
  const int64_t B = 3, H = 4;
  for (bool lbr : {false, true}) {
    SCOPED_TRACE(lbr ? "linear_before_reset" : "reset before linear");
    Tensor XW = placeholder({B, 3 * H}, float32(), "xw"), Hp = placeholder({B, H}, float32(), "h"),
           R = placeholder({H, 3 * H}, float32(), "rt"), RB = placeholder({H}, float32(), "rbh");
    std::vector<ops::RnnActivation> acts = {ops::rnn_activation("Sigmoid"), ops::rnn_activation("Tanh")};
    Tensor y = ops::gru_cell(XW, Hp, R, lbr ? RB : Tensor(), acts, 0, lbr);
    NDArray xw = test::random({B, 3 * H}, float32(), 9, -2, 2), h = test::random({B, H}, float32(), 10),
            r = test::random({H, 3 * H}, float32(), 11), rb = test::random({H}, float32(), 12);
    std::vector<Tensor> ins = {XW, Hp, R};
    std::vector<NDArray> data = {xw, h, r};
    if (lbr) ins.push_back(RB), data.push_back(rb);
    auto out = evaluate({y}, ins, data);
    V vx = test::to_vec(xw), vh = test::to_vec(h), vr = test::to_vec(r), vrb = test::to_vec(rb), ref;
    for (int64_t b = 0; b < B; b++) {
      std::vector<double> z(H), rr(H);
      for (int64_t j = 0; j < H; j++) {
        double sz = vx[b * 3 * H + j], sr = vx[b * 3 * H + H + j];
        for (int64_t k = 0; k < H; k++) {
          sz += double(vh[b * H + k]) * vr[k * 3 * H + j];
          sr += double(vh[b * H + k]) * vr[k * 3 * H + H + j];
        }
        z[j] = sig(sz);
        rr[j] = sig(sr);
      }
      for (int64_t j = 0; j < H; j++) {
        double pre = vx[b * 3 * H + 2 * H + j];
        if (lbr) {
          double lin = vrb[j];
          for (int64_t k = 0; k < H; k++) lin += double(vh[b * H + k]) * vr[k * 3 * H + 2 * H + j];
          pre += rr[j] * lin;
        } else {
          for (int64_t k = 0; k < H; k++) pre += rr[k] * vh[b * H + k] * vr[k * 3 * H + 2 * H + j];
        }
        ref.push_back(static_cast<float>((1 - z[j]) * std::tanh(pre) + z[j] * vh[b * H + j]));
      }
    }
    test::expect_close(out[0], ref, {B, H});
  }
}

TEST(RnnActivation, DefaultsAndErrors) {
  EXPECT_DOUBLE_EQ(ops::rnn_activation("leakyrelu").alpha, 0.01);
  EXPECT_DOUBLE_EQ(ops::rnn_activation("HardSigmoid").beta, 0.5);
  EXPECT_DOUBLE_EQ(ops::rnn_activation("Affine", true, 3, false, 0).alpha, 3);
  EXPECT_THROW(ops::rnn_activation("Swish"), AttributeError);
  Tensor XW = placeholder({2, 8}, float32(), "xw"), Hp = placeholder({2, 4}, float32(), "h"), R = placeholder({8, 4}, float32(), "r");
  // xw of a GRU must have 3 gate blocks
  EXPECT_THROW(ops::gru_cell(XW, Hp, R, Tensor(), {ops::rnn_activation("Sigmoid"), ops::rnn_activation("Tanh")}, 0, false), ShapeError);
}

}  // namespace
}  // namespace tetune
