// RNN, LSTM and GRU: unrolled at import into one cell node per time step.
//
// Per direction d the expansion builds
//   XW = MatMul(X, W[d]^T) + (Wb[d] + Rb[d])      one GEMM over all steps
//   for each step t (reverse: last to first):
//     H_t (, C_t) = tetune.<Op>Cell(XW[t], H_{t-1} (, C_{t-1}), R[d]^T (, P[d] | Rb_h[d]))
// and stacks the H_t into Y, the last states into Y_h / Y_c. Each cell node
// lowers to one TE DAG (the recurrence product plus the gate arithmetic, see
// te/ops/rnn.h) over same-shaped inputs, so the cells of every step and layer
// with equal batch, hidden size and activations share one workload key: one
// kernel, tuned once. Weight slicing and R's transposition (the cells read
// gate vectors as contiguous rows of R^T, te/ops/rnn.h) fold away when the
// weights are constant.
// Source: ONNX operator spec, sections RNN, LSTM, GRU (opsets 7..22).
#include <cctype>
#include <cmath>

#include "base/errors.h"
#include "relay_import/expansion.h"
#include "relay_import/lowering_internal.h"
#include "te/ops/rnn.h"

namespace tetune {
namespace relay {

namespace {

int num_gates(const std::string &op) { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }

// The ONNX default activations of one direction.
std::vector<std::string> default_activations(const std::string &op) {
  if (op == "LSTM") return {"Sigmoid", "Tanh", "Tanh"};
  if (op == "GRU") return {"Sigmoid", "Tanh"};
  return {"Tanh"};
}

bool takes_alpha(const std::string &n) {
  for (const char *k : {"Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu"})
    if (ops::rnn_activation(n).name == k) return true;
  return false;
}
bool takes_beta(const std::string &n) {
  for (const char *k : {"Affine", "ScaledTanh", "HardSigmoid"})
    if (ops::rnn_activation(n).name == k) return true;
  return false;
}

// Per direction, the activations with explicit alpha / beta. activation_alpha /
// activation_beta are consumed in order by the activations that take them (as
// onnxruntime reads them).
std::vector<std::vector<ops::RnnActivation>> activations(Expander &e, int dirs) {
  const Node &n = e.node();
  size_t per = default_activations(n.op).size();
  std::vector<std::string> names;
  auto it = n.attrs.find("activations");
  if (it != n.attrs.end()) names = it->second.strings;
  if (names.empty()) {
    for (int d = 0; d < dirs; d++)
      for (auto &s : default_activations(n.op)) names.push_back(s);
  }
  if (names.size() != per * dirs)
    e.attr_fail("attribute 'activations' has " + std::to_string(names.size()) + " names, expected " + std::to_string(per * dirs));
  std::vector<double> alphas = n.attr_floats("activation_alpha"), betas = n.attr_floats("activation_beta");
  size_t ai = 0, bi = 0;
  std::vector<std::vector<ops::RnnActivation>> r(dirs);
  for (size_t k = 0; k < names.size(); k++) {
    bool a = false, b = false;
    try {
      a = takes_alpha(names[k]) && ai < alphas.size();
      b = takes_beta(names[k]) && bi < betas.size();
      r[k / per].push_back(ops::rnn_activation(names[k], a, a ? alphas[ai] : 0, b, b ? betas[bi] : 0));
    } catch (const AttributeError &) {
      e.unsupported("activation '" + names[k] + "'");
    }
    ai += a;
    bi += b;
  }
  return r;
}

Attrs cell_attrs(const std::vector<ops::RnnActivation> &acts, double clip) {
  Attr names;
  names.kind = Attr::Strings;
  std::vector<double> al, be;
  for (auto &a : acts) {
    names.strings.push_back(a.name);
    al.push_back(a.alpha);
    be.push_back(a.beta);
  }
  Attrs r = {{"activations", names}, {"activation_alpha", Attr::of_floats(al)}, {"activation_beta", Attr::of_floats(be)}};
  if (clip > 0) r["clip"] = Attr::of_float(clip);
  return r;
}

}  // namespace

namespace expansion {

void expand_recurrent(Expander &e) {
  const Node &n = e.node();
  const std::string op = n.op;
  const int G = num_gates(op);
  const bool lstm = op == "LSTM", gru = op == "GRU";
  int x = e.input(0), w = e.input(1), r = e.input(2), b = e.input(3), seq_lens = e.input(4), h0 = e.input(5);
  int c0 = lstm ? e.input(6) : -1, p = lstm ? e.input(7) : -1;
  if (x < 0 || w < 0 || r < 0) e.fail("inputs X, W and R are required");
  int64_t layout = e.opset() >= 14 ? n.attr_i("layout", 0) : 0;
  if (layout != 0 && layout != 1) e.attr_fail("attribute 'layout' must be 0 or 1, it is " + std::to_string(layout));
  std::string direction = n.attr_s("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    e.attr_fail("attribute 'direction' must be forward, reverse or bidirectional, it is '" + direction + "'");
  int dirs = direction == "bidirectional" ? 2 : 1;
  if (lstm && n.attr_i("input_forget", 0) != 0) e.unsupported("input_forget=1");
  double clip = n.has_attr("clip") ? n.attr_f("clip", 0) : 0;
  if (n.has_attr("clip") && !(clip > 0)) e.attr_fail("attribute 'clip' must be positive");
  bool lbr = gru && n.attr_i("linear_before_reset", 0) != 0;

  const Value &xv = e.value(x);
  DType dt = xv.dtype;
  if (!dt.is_float()) e.unsupported("input dtype " + dt.str());
  if (xv.shape.size() != 3) e.shape_fail("X has shape " + shape_str(xv.shape) + ", expected rank 3");
  int64_t seq = xv.shape[layout ? 1 : 0], batch = xv.shape[layout ? 0 : 1], in = xv.shape[2];
  if (seq > kMaxUnroll) e.unsupported("sequence length " + std::to_string(seq) + " (more than " + std::to_string(kMaxUnroll) + " unrolled steps)");
  const Shape &ws = e.shape(w);
  if (ws.size() != 3 || ws[0] != dirs || ws[1] % G != 0 || ws[2] != in)
    e.shape_fail("W has shape " + shape_str(ws) + ", expected [" + std::to_string(dirs) + ", " + std::to_string(G) +
                 "*hidden_size, " + std::to_string(in) + "]");
  int64_t H = ws[1] / G;
  if (n.has_attr("hidden_size") && n.attr_i("hidden_size", H) != H)
    e.shape_fail("attribute hidden_size=" + std::to_string(n.attr_i("hidden_size", H)) + " but W has " + std::to_string(ws[1]) +
                 " rows (" + std::to_string(G) + " gates)");
  auto expect_shape = [&](int v, const Shape &s, const std::string &what) {
    if (v >= 0 && e.shape(v) != s) e.shape_fail(what + " has shape " + shape_str(e.shape(v)) + ", expected " + shape_str(s));
    if (v >= 0 && e.value(v).dtype != dt) e.fail(what + " has dtype " + e.value(v).dtype.str() + ", X has " + dt.str());
  };
  expect_shape(r, {dirs, G * H, H}, "R");
  expect_shape(b, {dirs, 2 * G * H}, "B");
  Shape state = layout ? Shape{batch, dirs, H} : Shape{dirs, batch, H};
  expect_shape(h0, state, "initial_h");
  expect_shape(c0, state, "initial_c");
  expect_shape(p, {dirs, 3 * H}, "P");
  if (seq_lens >= 0) {
    const Value &sl = e.value(seq_lens);
    if (!sl.is_const()) e.unsupported("non-constant sequence_lens (the unrolled step count is static)");
    if (sl.data->size() != batch) e.shape_fail("sequence_lens has " + std::to_string(sl.data->size()) + " values, batch is " + std::to_string(batch));
    for (int64_t k = 0; k < sl.data->size(); k++)
      if (sl.data->get_int(k) != seq)
        e.unsupported("sequence_lens shorter than the sequence (" + std::to_string(sl.data->get_int(k)) +
                      " < " + std::to_string(seq) + " for batch " + std::to_string(k) + ")");
  }
  auto acts = activations(e, dirs);

  if (layout) x = e.emit1("Transpose", {x}, {{"perm", Attr::of_ints({1, 0, 2})}});
  NDArray zeros({batch, H}, dt);
  for (int64_t k = 0; k < zeros.size(); k++) zeros.set(k, 0);
  std::vector<std::vector<int>> hs(dirs, std::vector<int>(seq, -1));
  std::vector<int> h_last(dirs), c_last(dirs);
  for (int d = 0; d < dirs; d++) {
    bool reverse = direction == "reverse" || d == 1;
    int wt = e.emit1("Transpose", {e.take(w, d, 0)}, {{"perm", Attr::of_ints({1, 0})}});
    int xw = e.emit1("MatMul", {x, wt});
    int rb_h = -1;
    if (b >= 0) {
      int bd = e.reshape(e.take(b, d, 0), {2, G * H});
      int wb = e.take(bd, 0, 0), rb = e.take(bd, 1, 0);
      if (lbr) {
        // Rb_h multiplies with the reset gate inside the cell; only Rb_z, Rb_r add to the projection.
        std::vector<int64_t> idx;
        for (int64_t k = 2 * H; k < 3 * H; k++) idx.push_back(k);
        rb_h = e.emit1("Gather", {rb, e.int_const(idx)}, {{"axis", Attr::of_int(0)}});
        NDArray mask({G * H}, dt);
        for (int64_t k = 0; k < G * H; k++) mask.set(k, k < 2 * H ? 1 : 0);
        rb = e.emit1("Mul", {rb, e.constant(mask, "rb_mask")});
      }
      xw = e.emit1("Add", {xw, e.emit1("Add", {wb, rb})});
    }
    if (lbr && b < 0) {
      NDArray z({H}, dt);
      for (int64_t k = 0; k < H; k++) z.set(k, 0);
      rb_h = e.constant(z, "rb_h");
    }
    int rd = e.emit1("Transpose", {e.take(r, d, 0)}, {{"perm", Attr::of_ints({1, 0})}});
    int pd = p >= 0 ? e.take(p, d, 0) : -1;
    int h = h0 >= 0 ? e.take(h0, d, layout ? 1 : 0) : e.constant(zeros, "h0");
    int c = lstm ? (c0 >= 0 ? e.take(c0, d, layout ? 1 : 0) : e.constant(zeros, "c0")) : -1;
    Attrs attrs = cell_attrs(acts[d], clip);
    if (gru) attrs["linear_before_reset"] = Attr::of_int(lbr);
    for (int64_t s = 0; s < seq; s++) {
      int64_t t = reverse ? seq - 1 - s : s;
      int xt = e.take(xw, t, 0);
      if (lstm) {
        std::vector<int> hc = e.emit("tetune.LSTMCell", {xt, h, c, rd, pd}, attrs, {-1, -1});
        h = hc[0];
        c = hc[1];
      } else if (gru) {
        h = e.emit1("tetune.GRUCell", {xt, h, rd, rb_h}, attrs);
      } else {
        h = e.emit1("tetune.RNNCell", {xt, h, rd}, attrs);
      }
      hs[d][t] = h;
    }
    h_last[d] = h;
    c_last[d] = c;
  }
  // Y [seq, dirs, batch, H] (layout 1: [batch, seq, dirs, H]); Y_h / Y_c [dirs, batch, H] (layout 1: [batch, dirs, H]).
  if (e.output(0) >= 0) {
    std::vector<int> per_dir;
    for (int d = 0; d < dirs; d++) per_dir.push_back(e.stack(hs[d], 0));
    int y = e.stack(per_dir, 1, layout ? -1 : e.output(0));
    if (layout) e.emit1("Transpose", {y}, {{"perm", Attr::of_ints({2, 0, 1, 3})}}, e.output(0));
  }
  auto finish_state = [&](const std::vector<int> &last, int out) {
    if (out >= 0) e.stack(last, layout ? 1 : 0, out);
  };
  finish_state(h_last, e.output(1));
  if (lstm) finish_state(c_last, e.output(2));
}

}  // namespace expansion

namespace lowering {
namespace {

std::vector<ops::RnnActivation> cell_activations(LowerContext &c, size_t n) {
  auto it = c.node().attrs.find("activations");
  std::vector<std::string> names = it == c.node().attrs.end() ? std::vector<std::string>{} : it->second.strings;
  std::vector<double> al = c.node().attr_floats("activation_alpha"), be = c.node().attr_floats("activation_beta");
  if (names.size() != n || al.size() != n || be.size() != n) c.attr_fail("expects " + std::to_string(n) + " activations with alpha and beta");
  std::vector<ops::RnnActivation> r;
  for (size_t k = 0; k < n; k++) r.push_back(ops::rnn_activation(names[k], true, al[k], true, be[k]));
  return r;
}

double cell_clip(LowerContext &c) { return c.node().attr_f("clip", 0); }

LOWER(l_rnn_cell) {
  return {ops::rnn_cell(c.in(0), c.in(1), c.in(2), cell_activations(c, 1)[0], cell_clip(c), c.name())};
}

LOWER(l_lstm_cell) {
  return ops::lstm_cell(c.in(0), c.in(1), c.in(2), c.in(3), c.has(4) ? c.in(4) : Tensor(), cell_activations(c, 3), cell_clip(c),
                        c.name());
}

LOWER(l_gru_cell) {
  bool lbr = c.node().attr_i("linear_before_reset", 0) != 0;
  return {ops::gru_cell(c.in(0), c.in(1), c.in(2), c.has(3) ? c.in(3) : Tensor(), cell_activations(c, 2), cell_clip(c), lbr,
                        c.name())};
}

}  // namespace

const OpTable &rnn_ops() {
  // Internal ops made by expand_recurrent (not ONNX ops): one time step each.
  static const OpTable r = {
      {"tetune.RNNCell", {l_rnn_cell, OpPattern::Anchor}},
      {"tetune.LSTMCell", {l_lstm_cell, OpPattern::Anchor}},
      {"tetune.GRUCell", {l_gru_cell, OpPattern::Anchor}},
  };
  return r;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
