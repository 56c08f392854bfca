#include "codegen/prepack.h"

#include <algorithm>
#include <cstring>

#include "base/errors.h"

namespace tetune {

namespace {

// The root packed copy of placeholder `name` that every reader reads it
// through, or null.
const StageInfo *sole_packed_copy(const Schedule &s, const std::string &name) {
  const StageInfo *copy = nullptr;
  for (const auto &st : s.stages()) {
    bool reads = std::find(st.reads.begin(), st.reads.end(), name) != st.reads.end();
    if (!reads) continue;
    bool packed_root = st.kind == StageInfo::Copy && st.source == name && st.pack.packed() &&
                       st.attach.kind == Attach::Root && st.storage_order.empty() && !st.is_output;
    if (!packed_root || copy) return nullptr;  // read directly, or through two copies
    copy = &st;
  }
  return copy;
}

}  // namespace

std::vector<PrepackedInput> prepackable_inputs(const Schedule &s, const std::vector<int> &constant_inputs) {
  std::vector<int> order = constant_inputs;
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  std::vector<PrepackedInput> out;
  const auto &inputs = s.inputs();
  for (int i : order) {
    if (i < 0 || i >= static_cast<int>(inputs.size())) continue;
    const StageInfo *st = sole_packed_copy(s, inputs[i].name());
    if (!st) continue;
    const PackInfo &pk = st->pack;
    auto it = std::find(pk.source_axes.begin(), pk.source_axes.end(), pk.axis);
    if (it == pk.source_axes.end()) continue;
    PrepackedInput p;
    p.input = i;
    p.stage = st->name;
    p.axis = static_cast<int>(it - pk.source_axes.begin());
    p.factor = pk.factor;
    p.source_shape = inputs[i].shape();
    p.packed_shape = st->shape;
    out.push_back(p);
  }
  return out;
}

NDArray pack_input(const NDArray &source, const PrepackedInput &p) {
  const Shape &sh = source.shape();
  if (sh != p.source_shape)
    throw ShapeError("packing for stage '" + p.stage + "': expected shape [" + shape_str(p.source_shape) + "], got [" +
                     shape_str(sh) + "]");
  // source viewed as [outer, E / factor, factor, inner]; packed as [E / factor, outer, inner, factor].
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < p.axis; d++) outer *= sh[d];
  for (size_t d = p.axis + 1; d < sh.size(); d++) inner *= sh[d];
  const int64_t f = p.factor, panels = sh[p.axis] / f;
  const size_t elem = static_cast<size_t>(source.dtype().bytes());
  NDArray out(p.packed_shape, source.dtype());
  const char *src = static_cast<const char *>(source.raw());
  char *dst = static_cast<char *>(out.raw());
  if (inner == 1) {  // each panel row is a contiguous run of f elements (a GEMM's B packed along N)
    for (int64_t o = 0; o < panels; o++)
      for (int64_t a = 0; a < outer; a++)
        std::memcpy(dst + (o * outer + a) * f * elem, src + (a * sh[p.axis] + o * f) * elem, f * elem);
    return out;
  }
  for (int64_t o = 0; o < panels; o++)
    for (int64_t a = 0; a < outer; a++)
      for (int64_t b = 0; b < inner; b++)
        for (int64_t i = 0; i < f; i++) {
          int64_t from = (a * sh[p.axis] + o * f + i) * inner + b;
          int64_t to = ((o * outer + a) * inner + b) * f + i;
          std::memcpy(dst + to * elem, src + from * elem, elem);
        }
  return out;
}

}  // namespace tetune
