// The execution plan of an exported model (OUT/graph.bin) and its weights
// file (OUT/weights.bin): plain data shared by the exporter
// (relay_import/export) and the compiler-free runtime (runtime/model.h).
//
// graph.bin   = "TETUNEPLAN\0\0" | u32 version | u64 payload bytes | u64 FNV-1a(payload) | payload
// weights.bin = "TETUNEWEIGHTS\0\0\0" | u64 data bytes | data (every constant 64-byte aligned)
// The payload lists the values (name, dtype, shape, role, storage), the
// kernels of libmodel.so (name = exported symbol NAME_argv, argument count),
// the groups in execution order (a kernel group calls one kernel on its
// argument values, inputs then outputs; a view group reinterprets its input
// with a new shape without a copy) and the sizes of the planned buffers.
// All integers little endian.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tetune {
namespace rt {

constexpr uint32_t kPlanVersion = 1;
constexpr char kPlanMagic[12] = {'T', 'E', 'T', 'U', 'N', 'E', 'P', 'L', 'A', 'N', 0, 0};
constexpr char kWeightsMagic[16] = {'T', 'E', 'T', 'U', 'N', 'E', 'W', 'E', 'I', 'G', 'H', 'T', 'S', 0, 0, 0};
/** Symbol of the kernel table in libmodel.so (see KernelEntry) and its length / ABI tag. */
constexpr const char *kKernelTableSymbol = "tetune_model_kernels";
constexpr const char *kKernelCountSymbol = "tetune_model_num_kernels";
constexpr const char *kAbiSymbol = "tetune_model_abi";
constexpr const char *kAbiTag = "tetune-model-abi-1";

/** Row of the kernel table generated into libmodel.so. */
struct KernelEntry {
  const char *name;
  int num_args;
  int (*fn_argv)(void **args);
};

struct PlanValue {
  enum Storage : uint8_t {
    Input = 0,   // a graph input (bound per run)
    Const = 1,   // weights.bin at const_offset
    Buffer = 2,  // planned buffer `buffer`
    Alias = 3,   // the memory of value `alias` (a view), same bytes
  };
  std::string name;
  uint8_t dtype_code = 2;  // tetune::DType::Code (Int, UInt, Float, BFloat, Bool)
  uint8_t dtype_bits = 32;
  std::vector<int64_t> shape;
  Storage storage = Buffer;
  int32_t buffer = -1;       // Buffer
  int32_t alias = -1;        // Alias: a value that is not itself an Alias
  int64_t const_offset = 0;  // Const: offset in the weights data
  int64_t numel() const;
  int64_t elem_bytes() const { return dtype_code == 4 ? 1 : dtype_bits / 8; }
  int64_t nbytes() const { return numel() * elem_bytes(); }
};

struct PlanGroup {
  enum Kind : uint8_t { Kernel = 0, View = 1 };
  Kind kind = Kernel;
  std::string name;
  int32_t kernel = -1;        // index into Plan::kernels (Kernel)
  std::vector<int32_t> args;  // Kernel: inputs then outputs; View: {input, output}
  int32_t num_inputs = 0;     // Kernel: how many of args are inputs
};

struct PlanKernel {
  std::string name;  // symbol NAME_argv in libmodel.so
  int32_t num_args = 0;
};

struct Plan {
  std::string model;   // source model path
  std::string target;  // "host", "cuda", ...
  std::string halide_target;
  std::vector<PlanValue> values;
  std::vector<PlanKernel> kernels;
  std::vector<PlanGroup> groups;
  std::vector<int32_t> inputs, outputs;  // value ids
  std::vector<int64_t> buffer_bytes;
  int64_t weights_bytes = 0;      // data bytes of weights.bin
  uint64_t weights_checksum = 0;  // FNV-1a of the data

  /** Binary encoding (header + payload) and back. decode raises ParseError mentioning `what`. */
  std::string encode() const;
  static Plan decode(const std::string &bytes, const std::string &what);
  /** Structural checks (ids in range, arguments / aliases consistent); ParseError mentioning `what`. */
  void validate(const std::string &what) const;
};

uint64_t fnv1a(const void *data, size_t n, uint64_t h = 1469598103934665603ull);
/** "float32" etc. from the dtype code / bits. */
std::string dtype_name(uint8_t code, uint8_t bits);
std::string shape_string(const std::vector<int64_t> &shape);

}  // namespace rt
}  // namespace tetune
