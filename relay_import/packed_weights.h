// Constant weights packed once, when a model is compiled (codegen/prepack.h):
// a kernel whose schedule copies a constant input into panels at root gets
// that input packed here, as a new constant of the graph, instead of packing
// it on every call.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "codegen/prepack.h"
#include "relay_import/graph.h"
#include "relay_import/passes/fusion.h"

namespace tetune {
namespace relay {

/**
 * The constant inputs of task that a kernel built from s reads packed
 * (prepackable_inputs of task.constant_inputs) when `prepack` is set (the
 * CompileOptions::prepack_weights of the executor and the exporter); none
 * otherwise.
 */
std::vector<PrepackedInput> weights_to_prepack(const Schedule &s, const Task &task, bool prepack);

class WeightPacker {
 public:
  explicit WeightPacker(Graph &g) : g_(g) {}
  /**
   * Binds each of `prepacked` (its kernel's prepackable_inputs) of group grp
   * to a packed copy: a new constant value "<name>.packed" holding
   * pack_input() of the constant grp.input_values[p.input] replaces it there.
   * A constant packed the same way for an earlier group shares its copy.
   * Raises Error (internal) when that input is not a constant.
   */
  void bind(FusedGroup &grp, const std::vector<PrepackedInput> &prepacked);
  /**
   * Drops the data of the constants that bind() replaced and that no group
   * reads any more (kernel arguments, view and host node inputs), so that a
   * weight is held once. They are no longer constants afterwards.
   */
  void release_unread(const std::vector<FusedGroup> &groups);
  /** Packed constants made so far, and their bytes. */
  int packed() const { return static_cast<int>(copies_.size()); }
  int64_t packed_bytes() const { return bytes_; }

 private:
  Graph &g_;
  // (source value, the copy's layout: axis, factor) -> packed value
  std::map<std::pair<int, std::pair<int, int64_t>>, int> copies_;
  int64_t bytes_ = 0;
};

}  // namespace relay
}  // namespace tetune
