// tetune::ops matrix products vs plain loops.
#include "base/errors.h"
#include "te/ops/matmul.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

using test::evaluate;

// C[m,n] = sum_k A'[m,k] B'[k,n] on row-major vectors.
std::vector<float> mm_ref(const std::vector<float> &a, const std::vector<float> &b, int64_t M, int64_t K, int64_t N,
                          bool ta, bool tb) {
  std::vector<float> c(M * N, 0);
  for (int64_t m = 0; m < M; m++)
    for (int64_t n = 0; n < N; n++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++) s += double(ta ? a[k * M + m] : a[m * K + k]) * (tb ? b[n * K + k] : b[k * N + n]);
      c[m * N + n] = static_cast<float>(s);
    }
  return c;
}

TEST(MatMul, TwoD) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      int64_t M = 7, K = 13, N = 5;
      Shape sa = ta ? Shape{K, M} : Shape{M, K}, sb = tb ? Shape{N, K} : Shape{K, N};
      Tensor A = placeholder(sa, float32(), "A"), B = placeholder(sb, float32(), "B");
      Tensor C = ops::matmul(A, B, ta, tb);
      EXPECT_EQ(C->tag, "matmul");
      EXPECT_EQ(C->axes[0].var.name(), "i");
      NDArray a = test::random(sa, float32(), 1), b = test::random(sb, float32(), 2);
      test::expect_close(evaluate({C}, {A, B}, {a, b})[0], mm_ref(test::to_vec(a), test::to_vec(b), M, K, N, ta, tb), {M, N});
    }
  Tensor A = placeholder({3, 4}, float32(), "A"), B = placeholder({5, 2}, float32(), "B");
  EXPECT_THROW(ops::matmul(A, B), ShapeError);
  EXPECT_THROW(ops::matmul(A, placeholder({4, 2}, float16(), "H")), DTypeError);
}

TEST(MatMul, BatchBroadcast) {
  struct Case { Shape a, b, out; };
  std::vector<Case> cases = {
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{1, 3, 4}, {3, 4, 5}, {3, 3, 5}},
      {{2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}},
      {{3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{4}, {2, 4, 5}, {2, 5}},
      {{2, 3, 4}, {4}, {2, 3}},
      {{4}, {4}, {}},
  };
  for (auto &c : cases) {
    SCOPED_TRACE(shape_str(c.a) + " x " + shape_str(c.b));
    Tensor A = placeholder(c.a, float32(), "A"), B = placeholder(c.b, float32(), "B");
    Tensor C = ops::batch_matmul(A, B);
    ASSERT_EQ(C.shape(), c.out);
    NDArray a = test::random(c.a, float32(), 3), b = test::random(c.b, float32(), 4);
    auto va = test::to_vec(a), vb = test::to_vec(b);
    // Promote to >= 2-D, broadcast batch by hand.
    Shape pa = c.a.size() == 1 ? Shape{1, c.a[0]} : c.a, pb = c.b.size() == 1 ? Shape{c.b[0], 1} : c.b;
    int64_t M = pa[pa.size() - 2], K = pa.back(), N = pb.back();
    Shape ba(pa.begin(), pa.end() - 2), bb(pb.begin(), pb.end() - 2);
    size_t nb = std::max(ba.size(), bb.size());
    while (ba.size() < nb) ba.insert(ba.begin(), 1);
    while (bb.size() < nb) bb.insert(bb.begin(), 1);
    Shape bo(nb);
    for (size_t d = 0; d < nb; d++) bo[d] = std::max(ba[d], bb[d]);
    std::vector<float> exp;
    for (int64_t f = 0; f < test::numel(bo); f++) {
      auto o = test::unflatten(f, bo);
      int64_t fa = 0, fb = 0;
      for (size_t d = 0; d < nb; d++) {
        fa = fa * ba[d] + (ba[d] == 1 ? 0 : o[d]);
        fb = fb * bb[d] + (bb[d] == 1 ? 0 : o[d]);
      }
      std::vector<float> sa(va.begin() + fa * M * K, va.begin() + (fa + 1) * M * K);
      std::vector<float> sb(vb.begin() + fb * K * N, vb.begin() + (fb + 1) * K * N);
      auto r = mm_ref(sa, sb, M, K, N, false, false);
      exp.insert(exp.end(), r.begin(), r.end());
    }
    test::expect_close(evaluate({C}, {A, B}, {a, b})[0], exp, c.out);
  }
  // Transposed batch operands.
  Tensor A = placeholder({2, 4, 3}, float32(), "A"), B = placeholder({2, 5, 4}, float32(), "B");
  Tensor C = ops::batch_matmul(A, B, true, true);
  NDArray a = test::random({2, 4, 3}, float32(), 5), b = test::random({2, 5, 4}, float32(), 6);
  auto va = test::to_vec(a), vb = test::to_vec(b);
  std::vector<float> exp;
  for (int bi = 0; bi < 2; bi++) {
    auto r = mm_ref(std::vector<float>(va.begin() + bi * 12, va.begin() + bi * 12 + 12),
                    std::vector<float>(vb.begin() + bi * 20, vb.begin() + bi * 20 + 20), 3, 4, 5, true, true);
    exp.insert(exp.end(), r.begin(), r.end());
  }
  test::expect_close(evaluate({C}, {A, B}, {a, b})[0], exp, {2, 3, 5});
  EXPECT_THROW(ops::batch_matmul(placeholder({2, 3, 4}, float32(), "A"), placeholder({3, 4, 5}, float32(), "B")), ShapeError);
}

TEST(MatMul, Dense) {
  int64_t M = 7, K = 13, N = 6;
  Tensor X = placeholder({M, K}, float32(), "X"), W = placeholder({N, K}, float32(), "W"), b = placeholder({N}, float32(), "b");
  NDArray x = test::random({M, K}, float32(), 1), w = test::random({N, K}, float32(), 2), bv = test::random({N}, float32(), 3);
  auto ref = mm_ref(test::to_vec(x), test::to_vec(w), M, K, N, false, true);
  test::expect_close(evaluate({ops::dense(X, W)}, {X, W}, {x, w})[0], ref, {M, N});
  Tensor D = ops::dense(X, W, b, "fc");
  EXPECT_EQ(D.name(), "fc");
  EXPECT_EQ(D.inputs()[0].name(), "fc.matmul");
  auto vb = test::to_vec(bv);
  for (int64_t i = 0; i < M * N; i++) ref[i] += vb[i % N];
  test::expect_close(evaluate({D}, {X, W, b}, {x, w, bv})[0], ref, {M, N});
  EXPECT_THROW(ops::dense(X, W, placeholder({M}, float32(), "bb")), ShapeError);
}

TEST(MatMul, Gemm) {
  int64_t M = 5, K = 7, N = 3;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (Shape sc : {Shape{M, N}, Shape{N}, Shape{M, 1}, Shape{1}, Shape{}}) {
        SCOPED_TRACE(shape_str(sc));
        Shape sa = ta ? Shape{K, M} : Shape{M, K}, sb = tb ? Shape{N, K} : Shape{K, N};
        Tensor A = placeholder(sa, float32(), "A"), B = placeholder(sb, float32(), "B");
        bool has_c = !sc.empty();
        Tensor C = has_c ? placeholder(sc, float32(), "C") : Tensor();
        Tensor Y = ops::gemm(A, B, C, 0.5, 2.0, ta, tb);
        NDArray a = test::random(sa, float32(), 1), b = test::random(sb, float32(), 2), c = test::random(has_c ? sc : Shape{1}, float32(), 3);
        auto ref = mm_ref(test::to_vec(a), test::to_vec(b), M, K, N, ta, tb);
        auto vc = test::to_vec(c);
        for (int64_t i = 0; i < M; i++)
          for (int64_t j = 0; j < N; j++) {
            float cv = 0;
            if (has_c) cv = vc[(sc.size() == 2 ? (sc[0] == 1 ? 0 : i) * sc[1] : 0) + (sc.back() == 1 ? 0 : j)];
            ref[i * N + j] = 0.5f * ref[i * N + j] + 2.0f * cv;
          }
        auto out = has_c ? evaluate({Y}, {A, B, C}, {a, b, c}) : evaluate({Y}, {A, B}, {a, b});
        test::expect_close(out[0], ref, {M, N});
      }
  Tensor A = placeholder({2, 3}, float32(), "A"), B = placeholder({3, 4}, float32(), "B");
  EXPECT_THROW(ops::gemm(A, B, placeholder({3, 4}, float32(), "C")), ShapeError);
  EXPECT_EQ(ops::gemm(A, B)->tag, "matmul");
}

TEST(MatMul, Int32Accumulation) {
  Tensor A = placeholder({3, 4}, int32(), "A"), B = placeholder({4, 2}, int32(), "B");
  NDArray a = test::random({3, 4}, int32(), 1, -50, 50), b = test::random({4, 2}, int32(), 2, -50, 50);
  auto ref = mm_ref(test::to_vec(a), test::to_vec(b), 3, 4, 2, false, false);
  test::expect_close(evaluate({ops::matmul(A, B)}, {A, B}, {a, b})[0], ref, {3, 2}, int32());
}

}  // namespace
}  // namespace tetune
