#include "te/ops/matmul.h"

#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/elementwise.h"

namespace tetune {
namespace ops {

Tensor matmul(const Tensor &A, const Tensor &B, bool trans_a, bool trans_b, const std::string &name) {
  check_rank(A, 2, "MatMul", "A");
  check_rank(B, 2, "MatMul", "B");
  return batch_matmul(A, B, trans_a, trans_b, name);
}

Tensor batch_matmul(const Tensor &A, const Tensor &B, bool trans_a, bool trans_b, const std::string &name) {
  const std::string op = "MatMul";
  check_same_dtype(A, B, op);
  int ra = A.ndim(), rb = B.ndim();
  if (ra < 1 || rb < 1) throw ShapeError(op + ": operands '" + A.name() + "' and '" + B.name() + "' must have rank >= 1");
  bool a1 = ra == 1, b1 = rb == 1;
  if (a1) trans_a = false;
  if (b1) trans_b = false;
  int64_t M = a1 ? 1 : A.shape()[ra - (trans_a ? 1 : 2)];
  int64_t K = a1 ? A.shape()[0] : A.shape()[ra - (trans_a ? 2 : 1)];
  int64_t K2 = b1 ? B.shape()[0] : B.shape()[rb - (trans_b ? 1 : 2)];
  int64_t N = b1 ? 1 : B.shape()[rb - (trans_b ? 2 : 1)];
  if (K != K2)
    throw ShapeError(op + ": contraction extents differ: '" + A.name() + "' " + shape_str(A.shape()) + " and '" + B.name() +
                     "' " + shape_str(B.shape()) + " (" + std::to_string(K) + " vs " + std::to_string(K2) + ")");
  Shape abatch = a1 ? Shape{} : Shape(A.shape().begin(), A.shape().end() - 2);
  Shape bbatch = b1 ? Shape{} : Shape(B.shape().begin(), B.shape().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(abatch, bbatch);
  } catch (const ShapeError &) {
    throw ShapeError(op + ": batch axes of '" + A.name() + "' " + shape_str(A.shape()) + " and '" + B.name() + "' " +
                     shape_str(B.shape()) + " do not broadcast");
  }
  size_t nb = batch.size();
  Shape out = batch;
  std::vector<std::string> names;
  for (size_t d = 0; d < nb; d++) names.push_back(nb == 1 ? "b" : "b" + std::to_string(d));
  if (!a1) { out.push_back(M); names.push_back("i"); }
  if (!b1) { out.push_back(N); names.push_back("j"); }
  auto batch_idx = [&](const Shape &s, const std::vector<Var> &i) {
    std::vector<Expr> idx;
    size_t off = nb - s.size();
    for (size_t d = 0; d < s.size(); d++) idx.push_back(s[d] == 1 && batch[d + off] != 1 ? Expr(0) : Expr(i[d + off]));
    return idx;
  };
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        IterVar k = reduce_axis(K, "k");
        std::vector<Expr> ai = batch_idx(abatch, i), bi = batch_idx(bbatch, i);
        if (a1) ai.push_back(k);
        else if (trans_a) { ai.push_back(k); ai.push_back(i[nb]); }
        else { ai.push_back(i[nb]); ai.push_back(k); }
        Expr jn = b1 ? Expr() : Expr(i[nb + (a1 ? 0 : 1)]);
        if (b1) bi.push_back(k);
        else if (trans_b) { bi.push_back(jn); bi.push_back(k); }
        else { bi.push_back(k); bi.push_back(jn); }
        return tetune::sum(A(ai) * B(bi), {k});
      },
      name, "", names);
  return annotate(t, "matmul", {{"op", op}, {"trans_a", trans_a ? "1" : "0"}, {"trans_b", trans_b ? "1" : "0"}});
}

Tensor dense(const Tensor &X, const Tensor &W, const Tensor &bias, const std::string &name) {
  check_rank(X, 2, "Dense", "X");
  check_rank(W, 2, "Dense", "W");
  Tensor mm = batch_matmul(X, W, false, true, bias.defined() ? name + ".matmul" : name);
  mm.node()->attrs["op"] = "Dense";
  if (!bias.defined()) return mm;
  check_same_dtype(X, bias, "Dense");
  if (bias.shape() != Shape{W.shape()[0]})
    throw ShapeError("Dense: bias '" + bias.name() + "' has shape " + shape_str(bias.shape()) + ", expected " +
                     std::to_string(W.shape()[0]));
  Tensor t = compute(
      mm.shape(), [&](const std::vector<Var> &i) { return mm(i[0], i[1]) + bias(i[1]); }, name, "", {"i", "j"});
  return annotate(t, "broadcast", {{"op", "Dense"}});
}

Tensor gemm(const Tensor &A, const Tensor &B, const Tensor &C, double alpha, double beta, bool trans_a, bool trans_b,
            const std::string &name) {
  check_rank(A, 2, "Gemm", "A");
  check_rank(B, 2, "Gemm", "B");
  std::map<std::string, std::string> attrs = {{"op", "Gemm"}, {"alpha", num_str(alpha)}, {"beta", num_str(beta)},
                                              {"trans_a", trans_a ? "1" : "0"}, {"trans_b", trans_b ? "1" : "0"}};
  bool epilogue = C.defined() || alpha != 1.0;
  Tensor mm = batch_matmul(A, B, trans_a, trans_b, epilogue ? name + ".matmul" : name);
  annotate(mm, "matmul", attrs);
  if (!epilogue) return mm;
  Shape out = mm.shape();
  if (C.defined()) {
    check_same_dtype(A, C, "Gemm");
    bool ok = C.ndim() <= 2;
    if (ok) {
      try { ok = broadcast_shapes(C.shape(), out) == out; } catch (const ShapeError &) { ok = false; }
    }
    if (!ok) throw ShapeError("Gemm: C '" + C.name() + "' of shape " + shape_str(C.shape()) + " does not broadcast to " + shape_str(out));
  }
  DType dt = A.dtype();
  auto imm = [&](double v) { return dt.is_float() ? make_float(v, dt) : make_int(static_cast<int64_t>(v), dt); };
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        Expr y = mm(i[0], i[1]);
        if (alpha != 1.0) y = imm(alpha) * y;
        if (C.defined()) {
          Expr c = C(broadcast_index(C, out, i));
          y = y + (beta == 1.0 ? c : imm(beta) * c);
        }
        return y;
      },
      name, "", {"i", "j"});
  return annotate(t, "broadcast", attrs);
}

}  // namespace ops
}  // namespace tetune
