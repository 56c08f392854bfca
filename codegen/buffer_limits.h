// How large a tensor tetune can compile and run: Halide 14 indexes one buffer
// with 32-bit offsets, and all of a kernel's tensors must fit in this
// machine's memory. Checked before building, so that a huge shape is one
// sentence naming it instead of a Halide assertion or std::bad_alloc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {

/**
 * Most bytes one Halide 14 buffer may span: 2^31 - 1. tetune's targets do not
 * set Halide's large_buffers feature (it makes every index 64-bit), so a
 * larger buffer fails Halide's halide_error_buffer_allocation_too_large check.
 */
constexpr int64_t kMaxBufferBytes = (int64_t(1) << 31) - 1;

/** Physical memory of this machine in bytes (sysconf); 0 when it cannot be read. */
int64_t physical_memory_bytes();

/** Bytes of a tensor of this shape and dtype, saturated at INT64_MAX (no overflow for any extents). */
int64_t tensor_bytes(const Shape &shape, DType dtype);

/** "40.0 GB", "512.0 MB", "3 KB": a byte count for messages (powers of 1000). */
std::string format_bytes(int64_t bytes);

/**
 * "" when a tensor of this shape and dtype fits in one Halide buffer, else the
 * end of a sentence saying why not: "(1x3x48000x19200 float32) is 11.1 GB,
 * more than the 2.1 GB (2^31 - 1 bytes) one Halide 14 buffer can index".
 */
std::string buffer_too_large(const Shape &shape, DType dtype);

/**
 * Checks that each tensor fits in one Halide buffer (kMaxBufferBytes) and
 * that all of them together fit in this machine's physical memory. Raises
 * ShapeError, one sentence that starts with `what` (the input at fault, e.g.
 * "--shape 100000,100000,100000: matmul") and names the tensor, its shape and
 * its size.
 */
void check_tensor_sizes(const std::vector<Tensor> &tensors, const std::string &what);

}  // namespace tetune
