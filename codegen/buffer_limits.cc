#include "codegen/buffer_limits.h"

#include <unistd.h>

#include <cstdio>
#include <limits>

#include "base/errors.h"

namespace tetune {

int64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<int64_t>(pages) * page;
}

int64_t tensor_bytes(const Shape &shape, DType dtype) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t n = dtype.bytes();
  for (int64_t d : shape) {
    if (d <= 0) return 0;
    if (n > kMax / d) return kMax;
    n *= d;
  }
  return n;
}

std::string format_bytes(int64_t bytes) {
  char b[64];
  if (bytes >= 1000000000) std::snprintf(b, sizeof b, "%.1f GB", bytes / 1e9);
  else if (bytes >= 1000000) std::snprintf(b, sizeof b, "%.1f MB", bytes / 1e6);
  else if (bytes >= 1000) std::snprintf(b, sizeof b, "%.0f KB", bytes / 1e3);
  else std::snprintf(b, sizeof b, "%lld bytes", static_cast<long long>(bytes));
  return b;
}

std::string buffer_too_large(const Shape &shape, DType dtype) {
  int64_t n = tensor_bytes(shape, dtype);
  if (n <= kMaxBufferBytes) return "";
  return "(" + shape_str(shape) + " " + dtype.str() + ") is " + format_bytes(n) +
         ", more than the 2.1 GB (2^31 - 1 bytes) one Halide 14 buffer can index";
}

void check_tensor_sizes(const std::vector<Tensor> &tensors, const std::string &what) {
  int64_t total = 0;
  for (const Tensor &t : tensors) {
    int64_t n = tensor_bytes(t.shape(), t.dtype());
    std::string too_large = buffer_too_large(t.shape(), t.dtype());
    if (!too_large.empty()) throw ShapeError(what + ": tensor '" + t.name() + "' " + too_large);
    total += n;  // no overflow: each term is below 2^31
  }
  int64_t ram = physical_memory_bytes();
  if (ram > 0 && total > ram)
    throw ShapeError(what + " needs " + format_bytes(total) + " for its " + std::to_string(tensors.size()) +
                     " tensors, more than this machine's " + format_bytes(ram) + " of memory");
}

}  // namespace tetune
