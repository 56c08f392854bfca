// Named operator workloads for the command line, Python and the benchmarks:
// an op name plus a list of integers (the op's --shape form) builds a concrete
// compute (placeholders + outputs). One registry serves `tetune ops`,
// `tune-op`, `run-op`, tetune.te.ops.registry() / build_op() and bench/.
//
// A shape form lists the numbers an op takes, e.g. "N,C,H,W,K,R,S[,stride[,pad]]":
// names separated by commas, optional trailing ones in brackets, and
// "D0,...,Dn" for any number (at least one) of tensor extents. Attributes that
// the numbers do not give take the ONNX defaults (each description says which).
//
// Entries are defined by operator family in registry_<family>.cc; tuning logs
// key records on the compute an entry builds, so an existing entry's builder
// must keep building the same compute.
#pragma once

#include <cstddef>
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
  /**
   * The inputs that a model holds as initializers (a convolution's or dense
   * layer's weight and bias): constant across runs, so a compiled model packs
   * them once and finds them cold, last read one inference ago. A subset of
   * `inputs`; empty for ops whose inputs are all activations.
   */
  std::vector<Tensor> weights;
};

struct OpEntry {
  std::string name;
  std::string shape_help;   // the --shape form, e.g. "M,N,K"
  std::string description;  // what it computes, its layout and the ONNX op it matches
  std::string example;      // a small --shape that builds, e.g. "64,48,40" (tests build every op with it)
  std::function<OpWorkload(const std::vector<int64_t> &)> build;
};

/** All registered ops, sorted by name (names unique). */
const std::vector<OpEntry> &op_registry();
/** The entry named `name`; AttributeError naming it (see `tetune ops`) when there is none. */
const OpEntry &find_op(const std::string &name);
/**
 * Builds op `name` for `shape`. UsageError (naming --shape, the op and its form) when shape has
 * fewer or more numbers than the op's --shape form takes; AttributeError for an unknown op;
 * the op's own ShapeError / AttributeError for extents it cannot take (e.g. a kernel larger
 * than the padded input).
 */
OpWorkload build_op(const std::string &name, const std::vector<int64_t> &shape);
/** Fewest and most numbers a --shape form takes (SIZE_MAX: any number, "D0,...,Dn"). */
size_t shape_form_min(const std::string &shape_help);
size_t shape_form_max(const std::string &shape_help);
/** Parses "1024,1024,1024" (ParseError naming the bad item). */
std::vector<int64_t> parse_int_list(const std::string &text);

}  // namespace ops
}  // namespace tetune
