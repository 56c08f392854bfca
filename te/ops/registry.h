// Named operator workloads for the command line and benchmarks: an op name
// plus a list of integers builds a concrete compute (placeholders + outputs).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {
namespace ops {

struct OpWorkload {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

struct OpEntry {
  std::string name;
  std::string shape_help;   // e.g. "M,N,K"
  std::string description;  // layout and the ONNX op it matches
  std::function<OpWorkload(const std::vector<int64_t> &)> build;
};

/** All registered ops, sorted by name. */
const std::vector<OpEntry> &op_registry();
/**
 * Builds op `name` for `shape`. UsageError (naming --shape, the op and its form) when shape has
 * fewer or more numbers than the op's --shape form takes; AttributeError for an unknown op.
 */
OpWorkload build_op(const std::string &name, const std::vector<int64_t> &shape);
/** Parses "1024,1024,1024" (ParseError naming the bad item). */
std::vector<int64_t> parse_int_list(const std::string &text);

}  // namespace ops
}  // namespace tetune
