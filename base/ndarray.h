// NDArray: an owning, dense, row-major host buffer of one dtype.
//
// Used for kernel inputs and outputs, reference results, weights and the
// graph executor. float16 / bfloat16 elements are stored as their 16-bit
// patterns; bool as one byte.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "base/host_memory.h"
#include "base/shape.h"

namespace tetune {

/** Element storage from allocate_host_memory: 64-byte aligned, huge pages from 2 MiB on. */
template <typename T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U> &) {}  // NOLINT
  T *allocate(size_t n) { return static_cast<T *>(allocate_host_memory(n * sizeof(T))); }
  void deallocate(T *p, size_t) { free_host_memory(p); }
  template <typename U>
  bool operator==(const AlignedAllocator<U> &) const { return true; }
  template <typename U>
  bool operator!=(const AlignedAllocator<U> &) const { return false; }
};

class NDArray {
 public:
  NDArray() = default;
  /** Zero-filled array. Raises ShapeError for a negative dimension. */
  NDArray(const Shape &shape, DType dtype);

  const Shape &shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const { return size_; }
  int64_t nbytes() const { return size_ * dtype_.bytes(); }
  void *raw() { return storage_.data(); }
  const void *raw() const { return storage_.data(); }
  template <typename T> T *data() { return reinterpret_cast<T *>(storage_.data()); }
  template <typename T> const T *data() const { return reinterpret_cast<const T *>(storage_.data()); }

  /** Element i (flat, row-major) converted to double, for any dtype. */
  double get(int64_t i) const;
  /**
   * Element i as an exact int64 for integer and bool dtypes (get() rounds
   * above 2^53: INT64_MAX, PyTorch's "to the end" in Slice, would come back
   * as 2^63 and wrap); uint64 above INT64_MAX saturates; a float is
   * truncated toward zero and saturated, NaN gives 0.
   */
  int64_t get_int(int64_t i) const;
  /** Every element as get_int gives it, in row-major order (a shape, axes, pads...). */
  std::vector<int64_t> ints() const;
  /** Stores v into element i, converted (rounded / saturated per C rules) to the dtype. */
  void set(int64_t i, double v);

  /** Uniform random values in [lo, hi) from a fixed seed (integers: rounded down). */
  static NDArray random(const Shape &shape, DType dtype, uint64_t seed, double lo = -1.0, double hi = 1.0);
  /** Same data, new shape with equal element count; raises ShapeError otherwise. */
  NDArray reshaped(const Shape &shape) const;

 private:
  Shape shape_;
  DType dtype_ = float32();
  int64_t size_ = 0;
  std::vector<uint64_t, AlignedAllocator<uint64_t>> storage_;
};

/** Max |a| over all elements (0 for none); NaN elements are skipped. */
double max_abs(const NDArray &a);

/** Max |a-b| over all elements; raises ShapeError if shapes differ. */
double max_abs_diff(const NDArray &a, const NDArray &b);

/**
 * max |out - ref| / max |ref| (scale-aware: reductions reorder their sums):
 * how tuned kernels are checked against the reference. +inf when NaNs differ.
 */
double scaled_max_error(const NDArray &out, const NDArray &ref);

/**
 * Whether element x agrees with reference element y: x == y (so equal
 * infinities agree) or |x-y| <= atol + rtol*|y|. NaN agrees only with NaN: a
 * NaN where the reference holds a number, or a number where it holds NaN, is
 * a mismatch; NaN against NaN at the same position agrees, as onnxruntime's
 * tests compare outputs (numpy.allclose with equal_nan=True).
 */
bool elements_close(double x, double y, double rtol, double atol);

/**
 * True when every element pair satisfies elements_close (NaNs equal only to
 * NaN). `where` receives the first failing index and values.
 */
bool all_close(const NDArray &a, const NDArray &b, double rtol, double atol, std::string *where = nullptr);

/** Tolerances (rtol, atol) per dtype used by the tests: float32 1e-4/1e-5, float16 1e-2/1e-3, bfloat16 2e-2/1e-2, integers exact. */
std::pair<double, double> default_tolerance(DType t);

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat_to_float(uint16_t b);
uint16_t float_to_bfloat(float f);

}  // namespace tetune
