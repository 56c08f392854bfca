// Canonical form and stable hash of a compute DAG (the workload key).
//
// The canonical form numbers tensors and variables by first appearance, so it
// depends only on the computation (shapes, dtypes, expression structure,
// constants), never on names or pointer values: the same conv in two models
// has the same key in every process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace tetune {

/** Canonical text of the DAG that computes outputs (names erased). */
std::string canonical_form(const std::vector<Tensor> &outputs);

/** FNV-1a 64-bit hash of text (Fowler, Noll, Vo; IETF draft-eastlake-fnv). */
uint64_t fnv1a64(const std::string &text);

/** Workload key: 16 hex digits of fnv1a64(canonical_form(outputs)). */
std::string workload_key(const std::vector<Tensor> &outputs);

}  // namespace tetune
