// TE's bitwise operators (&, |, ^, ~) against the same C++ operators on the
// stored integers, through the interpreter and the Halide kernel, for signed
// and unsigned types of 8 to 64 bits (ONNX BitwiseAnd / Or / Xor / Not).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "base/errors.h"
#include "tests/te/op_test_util.h"

namespace tetune {
namespace {

template <typename T>
void check(DType dt, const std::vector<int64_t> &av, const std::vector<int64_t> &bv) {
  Shape s{static_cast<int64_t>(av.size())};
  Tensor a = placeholder(s, dt, "a"), b = placeholder(s, dt, "b");
  auto elementwise = [&](const std::string &name, const std::function<Expr(Expr, Expr)> &f) {
    return compute(s, [&](const std::vector<Var> &i) { return f(a(i[0]), b(i[0])); }, name);
  };
  std::vector<Tensor> outs = {elementwise("and", [](Expr x, Expr y) { return x & y; }),
                              elementwise("or", [](Expr x, Expr y) { return x | y; }),
                              elementwise("xor", [](Expr x, Expr y) { return x ^ y; }),
                              elementwise("not", [](Expr x, Expr) { return ~x; })};
  NDArray da(s, dt), db(s, dt);
  for (size_t k = 0; k < av.size(); k++) {
    da.data<T>()[k] = static_cast<T>(av[k]);  // the bits themselves (set() would saturate)
    db.data<T>()[k] = static_cast<T>(bv[k]);
  }
  std::vector<NDArray> r = test::evaluate(outs, {a, b}, {da, db});
  for (size_t k = 0; k < av.size(); k++) {
    T x = static_cast<T>(av[k]), y = static_cast<T>(bv[k]);
    EXPECT_EQ(r[0].data<T>()[k], static_cast<T>(x & y)) << dt.str() << " " << x << " & " << y;
    EXPECT_EQ(r[1].data<T>()[k], static_cast<T>(x | y)) << dt.str() << " " << x << " | " << y;
    EXPECT_EQ(r[2].data<T>()[k], static_cast<T>(x ^ y)) << dt.str() << " " << x << " ^ " << y;
    EXPECT_EQ(r[3].data<T>()[k], static_cast<T>(~x)) << dt.str() << " ~" << x;
  }
}

TEST(Bitwise, SignedTypesUseTwosComplementBits) {
  std::vector<int64_t> a = {0, 1, -1, 5, -128, 127, 0x55, -7}, b = {0, -1, 3, 6, 127, -128, 0x0f, 12};
  check<int8_t>(int8(), a, b);
  check<int16_t>(int16(), a, b);
  check<int32_t>(int32(), a, b);
  std::vector<int64_t> wide = a;
  wide.push_back(INT64_MIN);
  std::vector<int64_t> wide_b = b;
  wide_b.push_back(INT64_MAX);
  check<int64_t>(int64(), wide, wide_b);
}

TEST(Bitwise, UnsignedNotStaysInRange) {
  std::vector<int64_t> a = {0, 1, 255, 0xa5, 200, 17}, b = {255, 1, 0, 0x5a, 100, 34};
  check<uint8_t>(uint8(), a, b);
  check<uint16_t>(uint16(), a, b);
  check<uint32_t>(uint32(), a, b);
  check<uint64_t>(uint64(), a, b);
}

TEST(Bitwise, FloatAndBoolOperandsAreRejected) {
  Expr f = make_float(1.0), g = make_float(2.0);
  EXPECT_THROW(f & g, DTypeError);
  EXPECT_THROW(f | g, DTypeError);
  EXPECT_THROW(f ^ g, DTypeError);
  EXPECT_THROW(~f, DTypeError);
  Expr t = make_int(1, boolean());
  EXPECT_THROW(t & t, DTypeError);
  EXPECT_THROW(~t, DTypeError);
}

}  // namespace
}  // namespace tetune
