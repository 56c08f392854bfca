#include "te/ops/winograd.h"

#include <algorithm>
#include <functional>

#include "te/ops/common.h"
#include "te/ops/transform.h"

namespace tetune {
namespace ops {

namespace {

using Rows = std::vector<std::vector<double>>;

// The matrices are copied out of arrays: GCC 12.2 at -O2 with AVX-512 enabled
// stored {1, 1, 1, 0} as {1, 1, 1, 1} when the three were assigned from
// nested initializer lists in a row (a miscompile; bench/RESULTS.md).
template <size_t R, size_t C>
Rows rows(const double (&a)[R][C]) {
  Rows r(R, std::vector<double>(C));
  for (size_t i = 0; i < R; i++)
    for (size_t j = 0; j < C; j++) r[i][j] = a[i][j];
  return r;
}

template <size_t A, size_t M>
WinogradMatrices assemble(const double (&bt)[A][A], const double (&g)[A][3], const double (&at)[M][A]) {
  WinogradMatrices w;
  w.m = static_cast<int>(M);
  w.alpha = static_cast<int>(A);
  w.BT = rows(bt);
  w.G = rows(g);
  w.AT = rows(at);
  return w;
}

WinogradMatrices make_f2() {
  static const double bt[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static const double at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
  return assemble(bt, g, at);
}

WinogradMatrices make_f4() {
  static const double bt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                  {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static const double g[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  static const double at[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  return assemble(bt, g, at);
}

// A transform matrix's rows as lists of their non-zero entries, padded with
// zero coefficients to one length, so that row `r` of a stage's loop reads
// `terms` inputs whatever r is: term k of row r is coef[k][r] * in[index[k][r]].
struct SparseRows {
  std::vector<std::vector<double>> coef;
  std::vector<std::vector<int>> index;
};

SparseRows sparse_rows(const std::vector<std::vector<double>> &mat) {
  size_t terms = 0;
  for (const auto &row : mat) {
    size_t nz = 0;
    for (double v : row) nz += v != 0;
    terms = std::max(terms, nz);
  }
  SparseRows s;
  s.coef.assign(terms, std::vector<double>(mat.size(), 0.0));
  s.index.assign(terms, std::vector<int>(mat.size(), 0));
  for (size_t r = 0; r < mat.size(); r++) {
    size_t k = 0;
    for (size_t col = 0; col < mat[r].size(); col++)
      if (mat[r][col] != 0) s.coef[k][r] = mat[r][col], s.index[k][r] = static_cast<int>(col), k++;
    for (; k < terms; k++) s.index[k][r] = s.index[k - 1][r];  // coefficient 0 on an element the row reads already
  }
  return s;
}

// values[row] as an expression of the row (a scalar select chain: the loops
// over rows are outside the vector lanes, so it costs a few scalar moves).
Expr pick(const Expr &row, const std::vector<Expr> &values) {
  Expr r = values.back();
  for (int i = static_cast<int>(values.size()) - 2; i >= 0; i--) r = select(row == make_int(i), values[i], r);
  return r;
}
Expr pick_float(const Expr &row, const std::vector<double> &v, DType dt) {
  if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; })) return make_float(v[0], dt);
  std::vector<Expr> e;
  for (double x : v) e.push_back(make_float(x, dt));
  return pick(row, e);
}
Expr pick_int(const Expr &row, const std::vector<int> &v) {
  if (std::all_of(v.begin(), v.end(), [&](int x) { return x == v[0]; })) return make_int(v[0]);
  std::vector<Expr> e;
  for (int x : v) e.push_back(make_int(x));
  return pick(row, e);
}

// (T^T X T)[r1, r2] = sum_k1 T[r1][i1] * (sum_k2 T[r2][i2] * X[i1][i2]) over the non-zeros of rows r1, r2.
Expr two_sided(const SparseRows &t, const Expr &r1, const Expr &r2, DType dt,
               const std::function<Expr(const Expr &, const Expr &)> &x) {
  Expr total;
  for (size_t k1 = 0; k1 < t.coef.size(); k1++) {
    const Expr i1 = pick_int(r1, t.index[k1]);
    Expr inner;
    for (size_t k2 = 0; k2 < t.coef.size(); k2++) {
      Expr term = pick_float(r2, t.coef[k2], dt) * x(i1, pick_int(r2, t.index[k2]));
      inner = inner.defined() ? inner + term : term;
    }
    Expr outer = pick_float(r1, t.coef[k1], dt) * inner;
    total = total.defined() ? total + outer : outer;
  }
  return total;
}

}  // namespace

const WinogradMatrices &winograd_matrices(int m) {
  static const WinogradMatrices f2 = make_f2(), f4 = make_f4();
  if (m == 2) return f2;
  if (m == 4) return f4;
  throw AttributeError("winograd: output tile m = " + std::to_string(m) + " must be 2 or 4 (F(2x2, 3x3), F(4x4, 3x3))");
}

NDArray winograd_weight(const NDArray &w, int m) {
  const WinogradMatrices &t = winograd_matrices(m);
  const Shape &ws = w.shape();
  if (ws.size() != 6 || ws[2] != 3 || ws[3] != 3)
    throw ShapeError("winograd_weight: weight " + shape_str(ws) + " must be [K/kb, C/cb, 3, 3, cb, kb]");
  if (w.dtype() != float32()) throw DTypeError("winograd_weight: weight must be float32, got " + w.dtype().str());
  const int64_t KO = ws[0], CO = ws[1], CB = ws[4], KB = ws[5], A = t.alpha;
  NDArray out({A * A, KO, CO, CB, KB}, float32());
  float *u = out.data<float>();
  const int64_t tap = CB * KB;  // w's stride between taps
  for (int64_t k = 0; k < KO; k++)
    for (int64_t c = 0; c < CO; c++)
      for (int64_t i = 0; i < tap; i++) {
        const float *g = w.data<float>() + (k * CO + c) * 9 * tap + i;
        for (int64_t e1 = 0; e1 < A; e1++)
          for (int64_t e2 = 0; e2 < A; e2++) {
            double s = 0;
            for (int r = 0; r < 3; r++)
              for (int q = 0; q < 3; q++) s += t.G[e1][r] * g[(r * 3 + q) * tap] * t.G[e2][q];
            u[(((e1 * A + e2) * KO + k) * CO + c) * tap + i] = static_cast<float>(s);
          }
      }
  return out;
}

Tensor winograd_input_nchwc(const Tensor &x, int m, const std::vector<int64_t> &pads, const std::string &name) {
  const std::string op = "winograd_input_nchwc";
  check_rank(x, 5, op, "input");
  check_float(x, op);
  const WinogradMatrices &t = winograd_matrices(m);
  check_attr_list(pads, 4, 0, op, "pads");
  const int64_t N = x.shape()[0], CO = x.shape()[1], H = x.shape()[2], W = x.shape()[3], CB = x.shape()[4];
  const int64_t OH = H + pads[0] + pads[2] - 2, OW = W + pads[1] + pads[3] - 2;
  if (OH < 1 || OW < 1)
    throw ShapeError(op + ": input '" + x.name() + "' " + shape_str(x.shape()) + " with pads " + list_str(pads) +
                     " is smaller than the 3x3 window");
  const int64_t TH = winograd_tiles(OH, m), TW = winograd_tiles(OW, m);
  // Zeros below and right of the conv's own pads, as far as the last tile reads.
  const int64_t extra_h = TH * m + 2 - (H + pads[0] + pads[2]), extra_w = TW * m + 2 - (W + pads[1] + pads[3]);
  Tensor xp = pad(x, {0, 0, pads[0], pads[1], 0, 0, 0, pads[2] + extra_h, pads[3] + extra_w, 0}, "constant", 0.0, name + ".pad");
  const SparseRows bt = sparse_rows(t.BT);
  const DType dt = x.dtype();
  Tensor v = compute(
      {t.alpha * t.alpha, CO, N * TH * TW, CB},
      [&](const std::vector<Var> &i) {
        const Expr e1 = Expr(i[0]) / t.alpha, e2 = Expr(i[0]) % t.alpha;
        const Expr p = i[2], n = p / static_cast<int>(TH * TW), th = p / static_cast<int>(TW) % static_cast<int>(TH),
                   tw = p % static_cast<int>(TW);
        return two_sided(bt, e1, e2, dt, [&](const Expr &r, const Expr &s) {
          return xp(n, i[1], th * m + r, tw * m + s, i[3]);
        });
      },
      name, "", {"e", "c", "p", "cb"});
  return annotate(v, "winograd_input",
                  {{"op", op}, {"m", std::to_string(m)}, {"pads", list_str(pads)},
                   {kUnrollTilesAttr, "e:" + std::to_string(t.alpha * t.alpha)}});
}

Tensor winograd_gemm_nchwc(const Tensor &v, const Tensor &u, const std::string &name) {
  const std::string op = "winograd_gemm_nchwc";
  check_rank(v, 4, op, "transformed input");
  check_rank(u, 5, op, "transformed weight");
  check_same_dtype(v, u, op);
  const Shape &vs = v.shape(), &us = u.shape();
  if (vs[0] != us[0] || vs[1] != us[2] || vs[3] != us[3])
    throw ShapeError(op + ": transformed weight '" + u.name() + "' " + shape_str(us) + " must be [" + std::to_string(vs[0]) +
                     ", K/kb, " + std::to_string(vs[1]) + ", " + std::to_string(vs[3]) + ", kb] for '" + v.name() + "' " +
                     shape_str(vs));
  Tensor mt = compute(
      {vs[0], us[1], vs[2], us[4]},
      [&](const std::vector<Var> &i) {
        IterVar rco = reduce_axis(vs[1], "rco"), rci = reduce_axis(vs[3], "rci");
        return tetune::sum(v(i[0], rco, i[2], rci) * u(i[0], i[1], rco, rci, i[3]), {rco, rci});
      },
      name, "", {"e", "k", "p", "kb"});
  return annotate(mt, "winograd_gemm_nchwc", {{"op", op}});
}

Tensor winograd_output_nchwc(const Tensor &mt, int m, int64_t N, int64_t OH, int64_t OW, const std::string &name) {
  const std::string op = "winograd_output_nchwc";
  check_rank(mt, 4, op, "product");
  const WinogradMatrices &t = winograd_matrices(m);
  const int64_t TH = winograd_tiles(OH, m), TW = winograd_tiles(OW, m);
  if (mt.shape()[0] != t.alpha * t.alpha || mt.shape()[2] != N * TH * TW)
    throw ShapeError(op + ": product '" + mt.name() + "' " + shape_str(mt.shape()) + " must be [" +
                     std::to_string(t.alpha * t.alpha) + ", K/kb, " + std::to_string(N * TH * TW) + ", kb] for " +
                     std::to_string(N) + " images of " + shape_str({OH, OW}) + " outputs");
  const SparseRows at = sparse_rows(t.AT);
  const DType dt = mt.dtype();
  Tensor y = compute(
      {N, mt.shape()[1], OH, OW, mt.shape()[3]},
      [&](const std::vector<Var> &i) {
        const Expr p = (Expr(i[0]) * static_cast<int>(TH) + Expr(i[2]) / m) * static_cast<int>(TW) + Expr(i[3]) / m;
        return two_sided(at, Expr(i[2]) % m, Expr(i[3]) % m, dt, [&](const Expr &r, const Expr &s) {
          return mt(r * t.alpha + s, i[1], p, i[4]);
        });
      },
      name, "", {"n", "k", "h", "w", "kb"});
  return annotate(y, "winograd_output",
                  {{"op", op}, {"m", std::to_string(m)}, {kUnrollTilesAttr, "h:" + std::to_string(m) + ",w:" + std::to_string(m)}});
}

}  // namespace ops
}  // namespace tetune
