// ops::einsum against a plain reference: one loop nest over every label of
// the equation, accumulating the product of the operands into the output
// (Operators.md Einsum; NumPy einsum semantics for implicit output and "...").
#include <gtest/gtest.h>

#include <map>

#include "base/errors.h"
#include "te/ops/einsum.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

// Reference for an explicit, letters-only equation "ab,bc->ac": loops over all
// labels; an operand axis of extent 1 broadcasts (reads index 0).
NDArray reference(const std::string &eq, const std::vector<NDArray> &xs, DType dt) {
  size_t arrow = eq.find("->");
  std::vector<std::string> terms(1);
  for (char ch : eq.substr(0, arrow)) {
    if (ch == ',') terms.emplace_back();
    else terms.back() += ch;
  }
  std::string out = eq.substr(arrow + 2);
  std::map<char, int64_t> ext;
  for (size_t k = 0; k < xs.size(); k++)
    for (size_t d = 0; d < terms[k].size(); d++) ext[terms[k][d]] = std::max(ext[terms[k][d]], xs[k].shape()[d]);
  std::vector<char> labels;
  for (auto &kv : ext) labels.push_back(kv.first);
  Shape os;
  for (char ch : out) os.push_back(ext[ch]);
  std::vector<double> acc(1, 0.0);
  int64_t on = 1;
  for (auto v : os) on *= v;
  acc.assign(on, 0.0);
  std::map<char, int64_t> at;
  for (char l : labels) at[l] = 0;
  while (true) {
    double p = 1;
    for (size_t k = 0; k < xs.size(); k++) {
      int64_t flat = 0;
      for (size_t d = 0; d < terms[k].size(); d++) {
        int64_t e = xs[k].shape()[d];
        flat = flat * e + (e == 1 ? 0 : at[terms[k][d]]);
      }
      p *= xs[k].get(flat);
    }
    int64_t o = 0;
    for (size_t d = 0; d < out.size(); d++) o = o * os[d] + at[out[d]];
    acc[o] += p;
    size_t i = labels.size();  // odometer over all labels
    while (i > 0 && ++at[labels[i - 1]] == ext[labels[i - 1]]) at[labels[--i]] = 0;
    if (i == 0) break;
  }
  NDArray r(os, dt);
  for (int64_t i = 0; i < on; i++) r.set(i, acc[i]);
  return r;
}

// einsum(eq) on random inputs of the given shapes equals reference(ref_eq).
std::vector<Tensor> check(const std::string &eq, const std::string &ref_eq, const std::vector<Shape> &shapes,
                          DType dt = float32()) {
  std::vector<Tensor> ph;
  std::vector<NDArray> data;
  for (size_t k = 0; k < shapes.size(); k++) {
    ph.push_back(placeholder(shapes[k], dt, "x" + std::to_string(k)));
    data.push_back(dt.is_float() ? test::random(shapes[k], dt, 7 + k) : test::random(shapes[k], dt, 7 + k, -5, 5));
  }
  Tensor y = ops::einsum(eq, ph, "y");
  NDArray got = test::evaluate({y}, ph, data)[0];
  test::expect_close(got, reference(ref_eq, data, dt), dt);
  return post_order({y});
}

bool has_tag(const std::vector<Tensor> &stages, const std::string &tag) {
  for (const auto &t : stages)
    if (t.node()->tag == tag) return true;
  return false;
}

TEST(Einsum, MatmulFamilyBecomesBatchedProducts) {
  EXPECT_TRUE(has_tag(check("ij,jk->ik", "ij,jk->ik", {{3, 4}, {4, 5}}), "matmul"));
  EXPECT_TRUE(has_tag(check("bij,bjk->bik", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}), "matmul"));
  EXPECT_TRUE(has_tag(check("bhqd,bhkd->bhqk", "bhqd,bhkd->bhqk", {{2, 3, 4, 5}, {2, 3, 6, 5}}), "matmul"));
  check("ji,jk->ki", "ji,jk->ki", {{4, 3}, {4, 5}});
  check("i,j->ij", "i,j->ij", {{3}, {4}});
  check("ij,ij->ij", "ij,ij->ij", {{3, 4}, {3, 4}});
  check("ij,jk", "ij,jk->ik", {{3, 4}, {4, 5}});  // implicit output
}

TEST(Einsum, InnerProductAndSumsGiveScalars) {
  std::vector<Tensor> s = check("i,i", "i,i->", {{7}, {7}});
  EXPECT_EQ(s.back().ndim(), 0);
  check("ij->", "ij->", {{3, 4}});
  check("ij->i", "ij->i", {{3, 4}});
  check("ijk->j", "ijk->j", {{2, 3, 4}});
}

TEST(Einsum, TransposeAndCopy) {
  check("ij->ji", "ij->ji", {{3, 4}});
  check("ji", "ji->ij", {{3, 4}});  // implicit output is in ASCII order
  std::vector<Tensor> s = check("ij->ij", "ij->ij", {{3, 4}});
  EXPECT_EQ(s.back().name(), "y");  // a stage, not the input itself
}

TEST(Einsum, RepeatedLetterTakesTheDiagonal) {
  check("ii->i", "ii->i", {{4, 4}});
  check("ii", "ii->", {{4, 4}});  // trace
  check("...ii->...i", "abii->abi", {{3, 2, 4, 4}});
  check("iij,jk->ik", "iij,jk->ik", {{3, 3, 4}, {4, 2}});
}

TEST(Einsum, EllipsisBroadcastsFromTheRight) {
  check("...ij,...jk->...ik", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}});
  check("...ij,...jk->...ik", "abij,bjk->abik", {{2, 1, 3, 4}, {5, 4, 6}});
  check("...ij,...jk", "abij,bjk->abik", {{2, 5, 3, 4}, {1, 4, 6}});
  check("...ij->ij", "aij->ij", {{3, 2, 4}});  // explicit output without "..." sums those axes
}

TEST(Einsum, ThreeOperandsContractLeftToRight) {
  check("ij,jk,kl->il", "ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}});
  check("ab,bc,ca->", "ab,bc,ca->", {{2, 3}, {3, 4}, {4, 2}});
  check("i,ij,j->j", "i,ij,j->j", {{3}, {3, 4}, {4}});
}

TEST(Einsum, IntegersAreExact) { check("ij,jk->ik", "ij,jk->ik", {{3, 4}, {4, 5}}, int32()); }

TEST(Einsum, MalformedEquationsAreRejected) {
  Tensor a = placeholder({3, 4}, float32(), "a"), b = placeholder({5, 6}, float32(), "b");
  EXPECT_THROW(ops::einsum("ij,jk->ik", {a}), AttributeError);      // two terms, one input
  EXPECT_THROW(ops::einsum("ij->k", {a}), AttributeError);          // output letter in no input
  EXPECT_THROW(ops::einsum("ij->ii", {a}), AttributeError);         // repeated output letter
  EXPECT_THROW(ops::einsum("i1->i", {a}), AttributeError);          // bad character
  EXPECT_THROW(ops::einsum("ijk->i", {a}), ShapeError);             // more letters than axes
  EXPECT_THROW(ops::einsum("i->i", {a}), ShapeError);               // fewer, without "..."
  EXPECT_THROW(ops::einsum("ij,jk->ik", {a, b}), ShapeError);       // j is 4 and 5
  EXPECT_THROW(ops::einsum("ij,jk->ik", {a, placeholder({4, 2}, int32(), "c")}), DTypeError);
}

}  // namespace
}  // namespace tetune
