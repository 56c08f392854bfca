// Winograd F(m x m, 3 x 3) against the direct blocked conv (te/ops/winograd.h).
#include <iterator>

#include "base/errors.h"
#include "te/ops/conv.h"
#include "te/ops/winograd.h"
#include "tests/te/op_test_util.h"

using namespace tetune;

namespace {

struct Case {
  int m;
  int64_t N, C, H, W, K, cb, kb, pad;
};

// y of the three Winograd stages and of conv2d_nchwc on the same random blocked x and w.
void expect_matches_direct(const Case &k) {
  SCOPED_TRACE("m=" + std::to_string(k.m) + " H=" + std::to_string(k.H) + " W=" + std::to_string(k.W) +
               " pad=" + std::to_string(k.pad));
  Tensor X = placeholder({k.N, k.C / k.cb, k.H, k.W, k.cb}, float32(), "X");
  Tensor Wt = placeholder({k.K / k.kb, k.C / k.cb, 3, 3, k.cb, k.kb}, float32(), "W");
  NDArray x = test::random(X.shape(), float32(), 11), w = test::random(Wt.shape(), float32(), 12);
  const std::vector<int64_t> pads = {k.pad, k.pad, k.pad, k.pad};
  Tensor direct = ops::conv2d_nchwc(X, Wt, {1, 1}, pads, "direct");
  const NDArray want = test::evaluate({direct}, {X, Wt}, {x, w})[0];

  const NDArray u = ops::winograd_weight(w, k.m);
  const Shape &us = u.shape();
  const int64_t alpha = k.m + 2;
  ASSERT_EQ(us, (Shape{alpha * alpha, k.K / k.kb, k.C / k.cb, k.cb, k.kb}));
  Tensor U = placeholder(us, float32(), "U");
  Tensor V = ops::winograd_input_nchwc(X, k.m, pads);
  const int64_t OH = k.H + 2 * k.pad - 2, OW = k.W + 2 * k.pad - 2;
  const int64_t P = k.N * ((OH + k.m - 1) / k.m) * ((OW + k.m - 1) / k.m);
  ASSERT_EQ(V.shape(), (Shape{alpha * alpha, k.C / k.cb, P, k.cb}));
  Tensor Y = ops::winograd_output_nchwc(ops::winograd_gemm_nchwc(V, U), k.m, k.N, OH, OW);
  ASSERT_EQ(Y.shape(), direct.shape());
  const NDArray got = test::evaluate({Y}, {X, U}, {x, u})[0];
  // Rounding grows with m (the transforms' coefficients reach 8 and 1/24); 4e-5 on these sums of up to 72 products.
  std::string where;
  EXPECT_TRUE(all_close(got, want, 1e-4, 1e-4, &where)) << where;
  EXPECT_EQ(Y->tag, "winograd_output");
}

}  // namespace

TEST(Winograd, MatchesDirectBlockedConv) {
  // Tail tiles (OH, OW not multiples of m), no pad, two images, unequal blocks.
  for (const Case &k : {Case{2, 1, 8, 6, 6, 8, 4, 4, 1}, Case{2, 2, 4, 7, 5, 6, 2, 3, 0}, Case{4, 1, 8, 9, 10, 8, 4, 8, 1},
                        Case{4, 2, 4, 6, 6, 4, 4, 2, 0}, Case{4, 1, 4, 7, 7, 4, 4, 4, 1}})
    expect_matches_direct(k);
}

// Row `row` of mat equals want (compared element by element: GCC 12.2 with
// AVX-512 miscompiles some vector<double> initializer lists, this test's own included).
void expect_row(const std::vector<std::vector<double>> &mat, size_t row, const std::vector<double> &want_list) {
  ASSERT_LT(row, mat.size());
  ASSERT_EQ(mat[row].size(), want_list.size());
  for (size_t j = 0; j < want_list.size(); j++) EXPECT_EQ(mat[row][j], want_list[j]) << "row " << row << " col " << j;
}

TEST(Winograd, MatricesAreLavinAndGrays) {
  // One row each, as printed in the paper's section 5 (a miscompile once turned F(2x2)'s A^T row 0 into 1 1 1 1).
  static const double at2[] = {1, 1, 1, 0}, bt2[] = {0, 1, 0, -1}, at4[] = {0, 1, -1, 8, -8, 1}, bt4[] = {4, 0, -5, 0, 1, 0};
  expect_row(ops::winograd_matrices(2).AT, 0, std::vector<double>(std::begin(at2), std::end(at2)));
  expect_row(ops::winograd_matrices(2).BT, 3, std::vector<double>(std::begin(bt2), std::end(bt2)));
  expect_row(ops::winograd_matrices(4).AT, 3, std::vector<double>(std::begin(at4), std::end(at4)));
  expect_row(ops::winograd_matrices(4).BT, 0, std::vector<double>(std::begin(bt4), std::end(bt4)));
}

TEST(Winograd, TransformedWeightOfOneTapIsItsInterpolation) {
  // A weight with only its centre tap set: U[e1, e2] = G[e1][1] * G[e2][1] * w.
  for (int m : {2, 4}) {
    const ops::WinogradMatrices &t = ops::winograd_matrices(m);
    NDArray w({1, 1, 3, 3, 1, 1}, float32());
    w.data<float>()[4] = 2.0f;
    const NDArray u = ops::winograd_weight(w, m);
    ASSERT_EQ(u.size(), t.alpha * t.alpha);
    for (int e1 = 0; e1 < t.alpha; e1++)
      for (int e2 = 0; e2 < t.alpha; e2++)
        EXPECT_NEAR(u.data<float>()[e1 * t.alpha + e2], 2.0 * t.G[e1][1] * t.G[e2][1], 1e-7) << e1 << "," << e2;
  }
}

TEST(Winograd, Errors) {
  Tensor X = placeholder({1, 2, 6, 6, 4}, float32(), "X");
  EXPECT_THROW(ops::winograd_matrices(3), AttributeError);
  EXPECT_THROW(ops::winograd_input_nchwc(X, 6, {1, 1, 1, 1}), AttributeError);
  EXPECT_THROW(ops::winograd_input_nchwc(X, 2, {1, -1, 1, 1}), AttributeError);
  EXPECT_THROW(ops::winograd_input_nchwc(placeholder({1, 2, 6, 6}, float32(), "X4"), 2, {1, 1, 1, 1}), ShapeError);
  EXPECT_THROW(ops::winograd_input_nchwc(placeholder({1, 2, 1, 6, 4}, float32(), "X1"), 2, {0, 0, 0, 0}), ShapeError);
  Tensor V = placeholder({16, 2, 9, 4}, float32(), "V");
  EXPECT_THROW(ops::winograd_gemm_nchwc(V, placeholder({16, 2, 3, 4, 8}, float32(), "U")), ShapeError);  // 3 input blocks
  EXPECT_THROW(ops::winograd_gemm_nchwc(V, placeholder({36, 2, 2, 4, 8}, float32(), "U")), ShapeError);  // F(4) points
  EXPECT_THROW(ops::winograd_output_nchwc(placeholder({16, 2, 9, 8}, float32(), "M"), 2, 1, 7, 7), ShapeError);  // 16 tiles
  EXPECT_THROW(ops::winograd_weight(NDArray({1, 1, 5, 5, 1, 1}, float32()), 2), ShapeError);
  EXPECT_THROW(ops::winograd_weight(NDArray({1, 1, 3, 3, 1, 1}, float64()), 2), DTypeError);
}
