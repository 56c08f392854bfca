// Tensor files for the runtime (no compiler / ONNX dependency): NumPy .npy
// (v1-3 read, v1 write; little endian, C order) and serialised
// onnx.TensorProto .pb files (ONNX test-data inputs), plus the deterministic
// input of tools/reference/make_input.js (mulberry32, values in [0, 1)).
#pragma once

#include <string>

#include "base/ndarray.h"

namespace tetune {
namespace rt {

/** The whole file; ParseError naming it when it cannot be opened. */
std::string read_file_bytes(const std::string &path);
/** Raises ParseError naming the file for a missing / malformed / unsupported file. */
NDArray read_npy_file(const std::string &path);
void write_npy_file(const std::string &path, const NDArray &a);
/** onnx.TensorProto (raw_data or typed fields); *name receives its name. ParseError naming the file. */
NDArray read_tensor_pb_file(const std::string &path, std::string *name = nullptr);
/** By extension: .pb -> TensorProto, else .npy. */
NDArray read_tensor_file(const std::string &path);
/** make_input.js --seed seed (bit-identical float32). */
NDArray make_input(const Shape &shape, uint32_t seed = 7);

}  // namespace rt
}  // namespace tetune
