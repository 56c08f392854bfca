// Per-node shape inference: a node is lowered to TE with placeholders for its
// inputs and its outputs take the resulting shapes and dtypes. Shape / Size
// become constants from the input shape.
#pragma once

#include <vector>

#include "relay_import/graph.h"
#include "te/tensor.h"

namespace tetune {
namespace relay {

/**
 * Lowers node `id` with a fresh placeholder per used input (constants too).
 * placeholders / placeholder_values receive the placeholders created and the
 * value ids they stand for.
 */
std::vector<Tensor> lower_with_placeholders(const Graph &g, int id, std::vector<Tensor> *placeholders,
                                            std::vector<int> *placeholder_values);

/**
 * Infers the shapes of node id's outputs (its inputs must be known). Raises
 * ImportError / ShapeError naming the node on failure.
 */
void infer_node(Graph &g, int id);

/**
 * Shape inference over the whole graph in topological order. Ops expanded at
 * import (RNN / LSTM / GRU, If / Loop / Scan; see expansion.h) are replaced
 * by ordinary nodes when reached, each inferred as it is added. With fold,
 * nodes whose inputs are all constants are evaluated (see
 * passes/constant_folding.h) as they are reached, so shape subgraphs
 * (Shape -> Gather -> Concat -> Reshape) resolve before their consumers.
 */
void infer_shapes(Graph &g, bool fold = true);

}  // namespace relay
}  // namespace tetune
