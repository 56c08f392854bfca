#include "relay_import/passes/denormal_weights.h"

#include <cmath>
#include <memory>

namespace tetune {
namespace relay {

namespace {
template <typename T>
int64_t count_subnormal(const T *p, int64_t n) {
  int64_t c = 0;
  for (int64_t i = 0; i < n; i++) c += std::fpclassify(p[i]) == FP_SUBNORMAL;
  return c;
}

template <typename T>
void flush(T *p, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (std::fpclassify(p[i]) == FP_SUBNORMAL) p[i] = std::copysign(T(0), p[i]);
}

template <typename T>
int64_t flush_value(Value &v) {
  const int64_t c = count_subnormal(v.data->data<T>(), v.data->size());
  if (c == 0) return 0;
  auto copy = std::make_shared<NDArray>(*v.data);
  flush(copy->data<T>(), copy->size());
  v.data = copy;
  return c;
}
}  // namespace

int64_t flush_subnormal_constants(Graph &g) {
  int64_t flushed = 0;
  for (Value &v : g.values) {
    if (!v.is_const() || !v.data->dtype().is_float()) continue;
    if (v.data->dtype().bits == 32) flushed += flush_value<float>(v);
    else if (v.data->dtype().bits == 64) flushed += flush_value<double>(v);
  }
  return flushed;
}

}  // namespace relay
}  // namespace tetune
