// Operator fusion: partitions the graph's nodes into fused groups, each
// compiled as ONE TE DAG (one kernel, one tetune::Task).
//
// Rules (TVM-style, greedy in topological order):
//  * Conv / ConvTranspose / MatMul / Gemm (anchors), reductions (pooling,
//    ReduceX, Softmax) and data movement (Transpose, Concat, Slice, Resize...)
//    start a group.
//  * An elementwise node (bias add, activation, residual add, Mul, Clip,
//    HardSigmoid, Cast, BatchNormalization...) joins the group that produces
//    one of its inputs of the same shape as its output, unless that would
//    create a cycle between groups; otherwise it starts a group (and later
//    elementwise nodes may join it).
//  * A Transpose, Split or Slice (one data input) joins the group that
//    produces its input when that group only moves data too (Transpose,
//    Split, Slice) and nothing else reads the value: BERT's Transpose then
//    Split of Q, K and V become one kernel that writes the three pieces, not a
//    transposed copy and then the pieces. View nodes in between, each read by
//    the next alone, join that kernel too (ViT's Slice of K, its Reshape to
//    heads and their Transpose: one kernel, no sliced copy).
//  * View nodes (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) form
//    groups of their own that the executor runs as a reshape, without a kernel.
// A group's outputs are the values it produces that are read outside it or
// are graph outputs. Groups with equal computes get equal workload keys.
#pragma once

#include <string>
#include <vector>

#include "workload/task.h"
#include "relay_import/graph.h"
#include "te/tensor.h"

namespace tetune {
namespace relay {

struct FusedGroup {
  enum Kind { Kernel, View, Host } kind = Kernel;  // Host: one data-dependent node run by the executor (host_ops.h)
  std::string name;            // "g12_Conv_HardSigmoid_Mul"
  std::vector<int> nodes;      // node ids, topological order
  std::vector<int> outputs;    // value ids produced for readers outside the group (TE outputs order)
  // Filled by build_group (Kernel groups):
  std::vector<Tensor> te_outputs;   // one per outputs
  std::vector<int> input_values;    // value id bound to each kernel input (Schedule(te_outputs).inputs() order)
  tetune::Task task;
};

struct FusionOptions {
  bool fuse = true;          // false: one group per node
  int max_group_nodes = 32;  // cap on nodes per group
};

/** Partitions g (which must have static shapes) into groups in execution order. */
std::vector<FusedGroup> fuse_graph(const Graph &g, const FusionOptions &options = FusionOptions());

/** Builds the TE DAG and task of a Kernel group (placeholders for every value read from outside). */
void build_group(const Graph &g, FusedGroup &group, const Target &target = Target{}, int threads = 1);

}  // namespace relay
}  // namespace tetune
