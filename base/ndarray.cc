#include "base/ndarray.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "base/errors.h"

namespace tetune {

NDArray::NDArray(const Shape &shape, DType dtype) : shape_(shape), dtype_(dtype), size_(1) {
  for (size_t i = 0; i < shape.size(); i++) {
    if (shape[i] < 0) throw ShapeError("NDArray: axis " + std::to_string(i) + " has negative extent");
    size_ *= shape[i];
  }
  storage_.assign((size_ * dtype.bytes() + 7) / 8, 0);
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

uint16_t float_to_half(float f) {
  // Round to nearest even through the float's bit pattern.
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    int shift = 14 - exp;
    uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) half++;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) half++;
  return static_cast<uint16_t>(half);
}

float bfloat_to_float(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bfloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

double NDArray::get(int64_t i) const {
  const void *p = storage_.data();
  switch (dtype_.code) {
    case DType::Float:
      if (dtype_.bits == 32) return static_cast<const float *>(p)[i];
      if (dtype_.bits == 64) return static_cast<const double *>(p)[i];
      return half_to_float(static_cast<const uint16_t *>(p)[i]);
    case DType::BFloat: return bfloat_to_float(static_cast<const uint16_t *>(p)[i]);
    case DType::Bool: return static_cast<const uint8_t *>(p)[i] ? 1.0 : 0.0;
    case DType::Int:
      switch (dtype_.bits) {
        case 8: return static_cast<const int8_t *>(p)[i];
        case 16: return static_cast<const int16_t *>(p)[i];
        case 32: return static_cast<const int32_t *>(p)[i];
        default: return static_cast<double>(static_cast<const int64_t *>(p)[i]);
      }
    case DType::UInt:
      switch (dtype_.bits) {
        case 8: return static_cast<const uint8_t *>(p)[i];
        case 16: return static_cast<const uint16_t *>(p)[i];
        case 32: return static_cast<const uint32_t *>(p)[i];
        default: return static_cast<double>(static_cast<const uint64_t *>(p)[i]);
      }
  }
  return 0;
}

std::vector<int64_t> NDArray::ints() const {
  std::vector<int64_t> r(static_cast<size_t>(size()));
  for (int64_t k = 0; k < size(); k++) r[k] = get_int(k);
  return r;
}

int64_t NDArray::get_int(int64_t i) const {
  const void *p = storage_.data();
  if (dtype_.code == DType::Int && dtype_.bits == 64) return static_cast<const int64_t *>(p)[i];
  if (dtype_.code == DType::UInt && dtype_.bits == 64) {
    uint64_t u = static_cast<const uint64_t *>(p)[i];
    return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  }
  double v = get(i);  // exact for every narrower integer type
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(v);
}

void NDArray::set(int64_t i, double v) {
  void *p = storage_.data();
  if (dtype_.code == DType::Int || dtype_.code == DType::UInt) {
    // Saturate: converting an out-of-range double to an integer type is undefined in C++.
    if (std::isnan(v)) v = 0;
    double lo = dtype_.code == DType::UInt ? 0.0 : -std::ldexp(1.0, dtype_.bits - 1);
    double hi = dtype_.code == DType::UInt ? std::ldexp(1.0, dtype_.bits) - 1 : std::ldexp(1.0, dtype_.bits - 1) - 1;
    if (dtype_.bits >= 64) hi = dtype_.code == DType::UInt ? 1.8446744073709550e19 : 9.2233720368547748e18;
    v = std::min(std::max(v, lo), hi);
  }
  switch (dtype_.code) {
    case DType::Float:
      if (dtype_.bits == 32) static_cast<float *>(p)[i] = static_cast<float>(v);
      else if (dtype_.bits == 64) static_cast<double *>(p)[i] = v;
      else static_cast<uint16_t *>(p)[i] = float_to_half(static_cast<float>(v));
      return;
    case DType::BFloat: static_cast<uint16_t *>(p)[i] = float_to_bfloat(static_cast<float>(v)); return;
    case DType::Bool: static_cast<uint8_t *>(p)[i] = v != 0; return;
    case DType::Int:
      switch (dtype_.bits) {
        case 8: static_cast<int8_t *>(p)[i] = static_cast<int8_t>(v); return;
        case 16: static_cast<int16_t *>(p)[i] = static_cast<int16_t>(v); return;
        case 32: static_cast<int32_t *>(p)[i] = static_cast<int32_t>(v); return;
        default: static_cast<int64_t *>(p)[i] = static_cast<int64_t>(v); return;
      }
    case DType::UInt:
      switch (dtype_.bits) {
        case 8: static_cast<uint8_t *>(p)[i] = static_cast<uint8_t>(v); return;
        case 16: static_cast<uint16_t *>(p)[i] = static_cast<uint16_t>(v); return;
        case 32: static_cast<uint32_t *>(p)[i] = static_cast<uint32_t>(v); return;
        default: static_cast<uint64_t *>(p)[i] = static_cast<uint64_t>(v); return;
      }
  }
}

NDArray NDArray::random(const Shape &shape, DType dtype, uint64_t seed, double lo, double hi) {
  NDArray a(shape, dtype);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < a.size(); i++) {
    double v = dist(rng);
    a.set(i, dtype.is_float() ? v : std::floor(v));
  }
  return a;
}

NDArray NDArray::reshaped(const Shape &shape) const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  if (n != size_) throw ShapeError("NDArray reshape from " + shape_str(shape_) + " to " + shape_str(shape) + ": element counts differ");
  NDArray r = *this;
  r.shape_ = shape;
  return r;
}

double max_abs(const NDArray &a) {
  double m = 0;
  for (int64_t i = 0; i < a.size(); i++) m = std::max(m, std::fabs(a.get(i)));  // std::max(m, NaN) keeps m
  return m;
}

double max_abs_diff(const NDArray &a, const NDArray &b) {
  if (a.shape() != b.shape()) throw ShapeError("max_abs_diff: shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) + " differ");
  double m = 0;
  for (int64_t i = 0; i < a.size(); i++) {
    double x = a.get(i), y = b.get(i);
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    if (std::isnan(x) || x == y) continue;
    m = std::max(m, std::fabs(x - y));
  }
  return m;
}

double scaled_max_error(const NDArray &out, const NDArray &ref) {
  return max_abs_diff(out, ref) / std::max(max_abs(ref), 1e-30);
}

bool elements_close(double x, double y, double rtol, double atol) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return x == y || std::fabs(x - y) <= atol + rtol * std::fabs(y);
}

bool all_close(const NDArray &a, const NDArray &b, double rtol, double atol, std::string *where) {
  if (a.shape() != b.shape()) {
    if (where) *where = "shapes " + shape_str(a.shape()) + " and " + shape_str(b.shape()) + " differ";
    return false;
  }
  for (int64_t i = 0; i < a.size(); i++) {
    double x = a.get(i), y = b.get(i);
    if (!elements_close(x, y, rtol, atol)) {
      if (where) *where = "element " + std::to_string(i) + ": " + std::to_string(x) + " vs " + std::to_string(y);
      return false;
    }
  }
  return true;
}

std::pair<double, double> default_tolerance(DType t) {
  if (t == float32() || t == DType{DType::Float, 64}) return {1e-4, 1e-5};
  if (t == float16()) return {1e-2, 1e-3};
  if (t == bfloat16()) return {2e-2, 1e-2};
  return {0, 0};
}

}  // namespace tetune
