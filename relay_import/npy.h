// Minimal NumPy .npy I/O (v1-3 read, v1 write; little endian, C order) for
// float32 / float16 / int8 / uint8 / int32 / int64 / bool arrays.
#pragma once

#include <string>

#include "te/ndarray.h"

namespace tetune {
namespace relay {

/** Raises ParseError naming the file for a malformed or unsupported file. */
NDArray read_npy(const std::string &path);
void write_npy(const std::string &path, const NDArray &a);

}  // namespace relay
}  // namespace tetune
