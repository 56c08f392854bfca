// Helpers for the TE operator tests.
//
// Every op test evaluates its tensors through evaluate() (the plain
// interpreter, and the Halide-compiled kernel checked against it) and checks the
// result against an independent reference written as plain C++ loops.
//
// Tolerances (default_tolerance in te/ndarray.h), |a - e| <= atol + rtol * |e|:
//   float32 rtol 1e-4 atol 1e-5; float16 rtol 1e-2 atol 1e-3;
//   bfloat16 rtol 2e-2 atol 1e-2; integers and bool exact.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "schedule/schedule.h"
#include "te/interpreter.h"
#include "base/ndarray.h"
#include "te/tensor.h"

namespace tetune {
namespace test {

/** Evaluates outputs given data for inputs (the single entry point of all op tests). */
inline std::vector<NDArray> evaluate(const std::vector<Tensor> &outputs, const std::vector<Tensor> &inputs,
                                     const std::vector<NDArray> &data) {
  std::vector<NDArray> ref = interpret(outputs, inputs, data);
  // The same DAG compiled by Halide (unscheduled) must agree with the interpreter.
  Schedule s(outputs);
  std::vector<NDArray> args;
  for (const auto &p : s.inputs())
    for (size_t i = 0; i < inputs.size(); i++)
      if (inputs[i].same_as(p)) args.push_back(data[i]);
  std::vector<NDArray> compiled = Kernel::build(s).run(args);
  for (size_t i = 0; i < ref.size(); i++) {
    auto [rtol, atol] = default_tolerance(ref[i].dtype());
    std::string where;
    EXPECT_TRUE(all_close(compiled[i], ref[i], rtol, atol, &where))
        << "compiled kernel differs from the interpreter on output " << outputs[i].name() << ": " << where;
  }
  return ref;
}

/** Uniform random data in [lo, hi) from a fixed seed. */
inline NDArray random(const Shape &shape, DType dtype = float32(), uint64_t seed = 1, double lo = -1.0, double hi = 1.0) {
  return NDArray::random(shape, dtype, seed, lo, hi);
}

/** All elements as floats (row-major). */
inline std::vector<float> to_vec(const NDArray &a) {
  std::vector<float> v(static_cast<size_t>(a.size()));
  for (int64_t i = 0; i < a.size(); i++) v[static_cast<size_t>(i)] = static_cast<float>(a.get(i));
  return v;
}

/** An array of dtype holding values (converted like NDArray::set). */
inline NDArray from_vec(const Shape &shape, const std::vector<float> &values, DType dtype = float32()) {
  NDArray a(shape, dtype);
  EXPECT_EQ(static_cast<int64_t>(values.size()), a.size()) << "from_vec: wrong number of values for " << shape_str(shape);
  for (int64_t i = 0; i < a.size() && i < static_cast<int64_t>(values.size()); i++) a.set(i, values[static_cast<size_t>(i)]);
  return a;
}

/** Expects actual == expected within default_tolerance(dtype) (shape and dtype checked too). */
inline void expect_close(const NDArray &actual, const NDArray &expected, DType dtype) {
  ASSERT_EQ(shape_str(actual.shape()), shape_str(expected.shape()));
  EXPECT_EQ(actual.dtype().str(), dtype.str());
  auto tol = default_tolerance(dtype);
  std::string where;
  EXPECT_TRUE(all_close(actual, expected, tol.first, tol.second, &where)) << where;
}

/** Same against a reference vector (stored into dtype first, so it rounds like storage). */
inline void expect_close(const NDArray &actual, const std::vector<float> &expected, const Shape &shape, DType dtype = float32()) {
  expect_close(actual, from_vec(shape, expected, dtype), dtype);
}

/** Row-major strides of a shape. */
inline std::vector<int64_t> strides_of(const Shape &s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; d--) st[d] = st[d + 1] * s[d + 1];
  return st;
}

/** Multi-index of a flat row-major position. */
inline std::vector<int64_t> unflatten(int64_t flat, const Shape &s) {
  std::vector<int64_t> idx(s.size());
  for (int d = static_cast<int>(s.size()) - 1; d >= 0; d--) {
    idx[d] = flat % s[d];
    flat /= s[d];
  }
  return idx;
}

inline int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

/** v as [N, C, HW] in order, re-laid out as [N, C/b, HW, b] (NCHW[b]c); b divides C. */
inline std::vector<float> to_blocked(const std::vector<float> &v, int64_t N, int64_t C, int64_t HW, int64_t b) {
  std::vector<float> r(v.size());
  for (int64_t n = 0; n < N; n++)
    for (int64_t ch = 0; ch < C; ch++)
      for (int64_t i = 0; i < HW; i++) r[((n * (C / b) + ch / b) * HW + i) * b + ch % b] = v[(n * C + ch) * HW + i];
  return r;
}

}  // namespace test
}  // namespace tetune
