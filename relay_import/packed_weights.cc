#include "relay_import/packed_weights.h"

#include <set>

#include "base/errors.h"

namespace tetune {
namespace relay {

std::vector<PrepackedInput> weights_to_prepack(const Schedule &s, const Task &task, bool prepack) {
  if (!prepack) return {};
  return prepackable_inputs(s, task.constant_inputs);
}

void WeightPacker::bind(FusedGroup &grp, const std::vector<PrepackedInput> &prepacked) {
  for (const auto &p : prepacked) {
    int v = grp.input_values.at(p.input);
    if (!g_.values[v].is_const())
      throw Error("group " + grp.name + ": input '" + g_.values[v].name + "' to prepack is not a constant (internal error)");
    auto key = std::make_pair(v, std::make_pair(p.axis, p.factor));
    auto it = copies_.find(key);
    if (it == copies_.end()) {
      NDArray packed = pack_input(*g_.values[v].data, p);
      bytes_ += packed.nbytes();
      it = copies_.emplace(key, g_.add_const(g_.values[v].name + ".packed", packed)).first;
    }
    grp.input_values[p.input] = it->second;
  }
}

void WeightPacker::release_unread(const std::vector<FusedGroup> &groups) {
  std::set<int> read;
  for (const auto &grp : groups) {
    read.insert(grp.input_values.begin(), grp.input_values.end());
    if (grp.kind != FusedGroup::Kernel)
      for (int n : grp.nodes) read.insert(g_.nodes[n].inputs.begin(), g_.nodes[n].inputs.end());
  }
  read.insert(g_.outputs.begin(), g_.outputs.end());
  for (const auto &[key, packed] : copies_)
    if (!read.count(key.first)) g_.values[key.first].data.reset();
}

}  // namespace relay
}  // namespace tetune
