#include "te/ops/rnn.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

namespace {

std::string lower(const std::string &s) {
  std::string r = s;
  for (auto &ch : r) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return r;
}

Expr fimm(double v, DType t) { return make_float(v, t); }

// The gate input clamped to [-clip, clip] (ONNX attribute clip; none when <= 0 or infinite).
Expr clipped(const Expr &x, double clip) {
  if (!(clip > 0) || std::isinf(clip)) return x;
  return clamp(x, fimm(-clip, x.dtype()), fimm(clip, x.dtype()));
}

// g[b, j] = sum_k h[b, k] rt[k, col0 + j] for j < cols: the recurrence product of a gate block.
Tensor recurrence(const Tensor &h, const Tensor &rt, int64_t col0, int64_t cols, const std::string &name) {
  int64_t B = h.shape()[0], H = h.shape()[1];
  Tensor t = compute(
      {B, cols},
      [&](const std::vector<Var> &i) {
        IterVar k = reduce_axis(H, "k");
        return tetune::sum(h(i[0], k) * rt(k, Expr(i[1]) + Expr(col0)), {k});
      },
      name, "", {"i", "j"});
  return annotate(t, "matmul", {{"op", "RnnRecurrence"}, {"trans_a", "0"}, {"trans_b", "0"}});
}

// Shape / dtype checks shared by the cells; returns H.
int64_t check_cell(const std::string &op, const Tensor &xw, const Tensor &h, const Tensor &r, int gates) {
  check_rank(xw, 2, op, "xw");
  check_rank(h, 2, op, "h");
  check_rank(r, 2, op, "r");
  check_float(xw, op);
  check_same_dtype(xw, h, op);
  check_same_dtype(xw, r, op);
  int64_t B = h.shape()[0], H = h.shape()[1];
  if (xw.shape() != Shape{B, gates * H})
    throw ShapeError(op + ": xw '" + xw.name() + "' has shape " + shape_str(xw.shape()) + ", expected " +
                     shape_str(Shape{B, gates * H}) + " (batch, gates * hidden)");
  if (r.shape() != Shape{H, gates * H})
    throw ShapeError(op + ": rt '" + r.name() + "' has shape " + shape_str(r.shape()) + ", expected " +
                     shape_str(Shape{H, gates * H}) + " (hidden, gates * hidden: ONNX's R transposed)");
  return H;
}

void check_state(const std::string &op, const Tensor &s, const Tensor &h, const std::string &what) {
  check_same_dtype(s, h, op);
  if (s.shape() != h.shape())
    throw ShapeError(op + ": " + what + " '" + s.name() + "' has shape " + shape_str(s.shape()) + ", expected " +
                     shape_str(h.shape()));
}

void check_acts(const std::string &op, const std::vector<RnnActivation> &acts, size_t n) {
  if (acts.size() != n)
    throw AttributeError(op + ": " + std::to_string(acts.size()) + " activations given, expected " + std::to_string(n));
}

}  // namespace

RnnActivation rnn_activation(const std::string &name, bool has_alpha, double alpha, bool has_beta, double beta) {
  static const struct {
    const char *name;
    double alpha, beta;
  } known[] = {{"Sigmoid", 0, 0},     {"Tanh", 0, 0},       {"Relu", 0, 0},        {"Affine", 1, 0},
               {"LeakyRelu", 0.01, 0}, {"ThresholdedRelu", 1, 0}, {"ScaledTanh", 1, 1}, {"HardSigmoid", 0.2, 0.5},
               {"Elu", 1, 0},         {"Softsign", 0, 0},   {"Softplus", 0, 0}};
  for (const auto &k : known)
    if (lower(k.name) == lower(name)) return RnnActivation{k.name, has_alpha ? alpha : k.alpha, has_beta ? beta : k.beta};
  throw AttributeError("unknown recurrent activation '" + name + "'");
}

Expr apply_rnn_activation(const RnnActivation &f, const Expr &x) {
  DType t = x.dtype();
  Expr a = fimm(f.alpha, t), b = fimm(f.beta, t), zero = fimm(0, t), one = fimm(1, t);
  const std::string &n = f.name;
  if (n == "Sigmoid") return sigmoid(x);
  if (n == "Tanh") return tanh(x);
  if (n == "Relu") return max(x, zero);
  if (n == "Affine") return a * x + b;
  if (n == "LeakyRelu") return select(x < zero, a * x, x);
  if (n == "ThresholdedRelu") return select(x > a, x, zero);
  if (n == "ScaledTanh") return a * tanh(b * x);
  if (n == "HardSigmoid") return max(zero, min(one, a * x + b));
  if (n == "Elu") return select(x < zero, a * (exp(x) - one), x);
  if (n == "Softsign") return x / (one + abs(x));
  if (n == "Softplus") return log(one + exp(x));
  throw AttributeError("unknown recurrent activation '" + n + "'");
}

Tensor rnn_cell(const Tensor &xw, const Tensor &h, const Tensor &r, const RnnActivation &f, double clip,
                const std::string &name) {
  check_cell("RNN", xw, h, r, 1);
  Tensor g = recurrence(h, r, 0, h.shape()[1], name + ".gates");
  Tensor t = compute(
      h.shape(), [&](const std::vector<Var> &i) { return apply_rnn_activation(f, clipped(xw(i[0], i[1]) + g(i[0], i[1]), clip)); },
      name, "", {"i", "j"});
  return annotate(t, "elemwise", {{"op", "RNNCell"}});
}

std::vector<Tensor> lstm_cell(const Tensor &xw, const Tensor &h, const Tensor &c, const Tensor &r, const Tensor &p,
                              const std::vector<RnnActivation> &acts, double clip, const std::string &name) {
  int64_t H = check_cell("LSTM", xw, h, r, 4);
  check_state("LSTM", c, h, "cell state");
  check_acts("LSTM", acts, 3);
  if (p.defined()) {
    check_same_dtype(p, h, "LSTM");
    if (p.shape() != Shape{3 * H})
      throw ShapeError("LSTM: peepholes '" + p.name() + "' have shape " + shape_str(p.shape()) + ", expected " +
                       shape_str(Shape{3 * H}));
  }
  Tensor g = recurrence(h, r, 0, 4 * H, name + ".gates");
  // gate k's pre-activation at [b, j]
  auto gate = [&](int k, const Expr &b, const Expr &j) {
    Expr col = j + Expr(static_cast<int64_t>(k) * H);
    return xw(b, col) + g(b, col);
  };
  auto peep = [&](int k, const Expr &j, const Expr &state) { return p.defined() ? p(j + Expr(k * H)) * state : Expr(); };
  auto add_peep = [](const Expr &x, const Expr &pp) { return pp.defined() ? x + pp : x; };
  Tensor cell = compute(
      h.shape(),
      [&](const std::vector<Var> &i) {
        Expr b = i[0], j = i[1];
        Expr cp = c(b, j);
        Expr in = apply_rnn_activation(acts[0], clipped(add_peep(gate(0, b, j), peep(0, j, cp)), clip));
        Expr fg = apply_rnn_activation(acts[0], clipped(add_peep(gate(2, b, j), peep(2, j, cp)), clip));
        Expr cand = apply_rnn_activation(acts[1], clipped(gate(3, b, j), clip));
        return fg * cp + in * cand;
      },
      name + ".c", "", {"i", "j"});
  Tensor hidden = compute(
      h.shape(),
      [&](const std::vector<Var> &i) {
        Expr b = i[0], j = i[1];
        Expr ct = cell(b, j);
        Expr o = apply_rnn_activation(acts[0], clipped(add_peep(gate(1, b, j), peep(1, j, ct)), clip));
        return o * apply_rnn_activation(acts[2], ct);
      },
      name, "", {"i", "j"});
  return {annotate(hidden, "elemwise", {{"op", "LSTMCell"}}), annotate(cell, "elemwise", {{"op", "LSTMCell"}})};
}

Tensor gru_cell(const Tensor &xw, const Tensor &h, const Tensor &r, const Tensor &rb_h, const std::vector<RnnActivation> &acts,
                double clip, bool linear_before_reset, const std::string &name) {
  int64_t H = check_cell("GRU", xw, h, r, 3);
  check_acts("GRU", acts, 2);
  if (linear_before_reset != rb_h.defined())
    throw ShapeError(std::string("GRU: the recurrence bias of gate h must be given ") +
                     (linear_before_reset ? "with" : "only with") + " linear_before_reset");
  if (rb_h.defined()) {
    check_same_dtype(rb_h, h, "GRU");
    if (rb_h.shape() != Shape{H})
      throw ShapeError("GRU: rb_h '" + rb_h.name() + "' has shape " + shape_str(rb_h.shape()) + ", expected " + shape_str(Shape{H}));
  }
  DType t = h.dtype();
  // z and r (and h~'s product when linear_before_reset) from one product; otherwise h~'s product needs r first.
  Tensor g = recurrence(h, r, 0, (linear_before_reset ? 3 : 2) * H, name + ".gates");
  auto gate = [&](int k, const Expr &b, const Expr &j) {
    Expr col = j + Expr(static_cast<int64_t>(k) * H);
    return apply_rnn_activation(acts[0], clipped(xw(b, col) + g(b, col), clip));
  };
  Tensor hh;
  if (!linear_before_reset) {
    Tensor rh = compute(
        h.shape(), [&](const std::vector<Var> &i) { return gate(1, i[0], i[1]) * h(i[0], i[1]); }, name + ".rh", "", {"i", "j"});
    hh = recurrence(rh, r, 2 * H, H, name + ".hgate");
  }
  Tensor t_out = compute(
      h.shape(),
      [&](const std::vector<Var> &i) {
        Expr b = i[0], j = i[1];
        Expr z = gate(0, b, j);
        Expr xh = xw(b, j + Expr(2 * H));
        Expr pre = linear_before_reset ? xh + gate(1, b, j) * (g(b, j + Expr(2 * H)) + rb_h(j)) : xh + hh(b, j);
        Expr cand = apply_rnn_activation(acts[1], clipped(pre, clip));
        return (fimm(1, t) - z) * cand + z * h(b, j);
      },
      name, "", {"i", "j"});
  return annotate(t_out, "elemwise", {{"op", "GRUCell"}});
}

}  // namespace ops
}  // namespace tetune
