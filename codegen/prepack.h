// Constant inputs packed once, when a model is compiled, instead of on every
// call.
//
// A schedule may copy an input at root into panels (cache_read + pack_layout:
// Goto and van de Geijn's packed B, "Anatomy of High-Performance Matrix
// Multiplication", TOMS 2008, section 4; see
// autotune/search_space/rule_multi_level_tiling.cc). When that input is a
// model constant (Task::constant_inputs), the copy is the same on every call,
// yet a kernel that packs it re-reads the whole weight from memory first
// (ViT-B/16's MLP: 9.4 MB per GEMM call). onnxruntime's MLAS and TVM's
// dense_pack pack such weights once, at compile time; so does tetune: the
// caller packs the constant with pack_input() and passes the packed array in
// its place, and the kernel, built with these PrepackedInputs
// (BuildOptions::prepacked, compile_object), reads it where the copy was.
//
//   auto pre = prepackable_inputs(schedule, task.constant_inputs);
//   BuildOptions bo;
//   bo.prepacked = pre;
//   Kernel k = Kernel::build(schedule, target, bo);
//   inputs[pre[0].input] = pack_input(inputs[pre[0].input], pre[0]);
//   k.run(inputs, outputs);
#pragma once

#include <string>
#include <vector>

#include "base/ndarray.h"
#include "schedule/schedule.h"

namespace tetune {

/** An input of a schedule that the caller passes already packed as the schedule's root copy of it stores it. */
struct PrepackedInput {
  int input = -1;       // index into Schedule::inputs()
  std::string stage;    // the packed cache_read stage whose storage the packed array is
  int axis = -1;        // the input's axis stored split (row-major index)
  int64_t factor = 0;   // the split's inner extent
  Shape source_shape;   // the input's shape
  /** [source_shape[axis] / factor, the other axes in order, factor] (PackInfo). */
  Shape packed_shape;
};

/**
 * The inputs among `constant_inputs` (indices into s.inputs()) that s copies
 * at root in panels (a cache_read stage of the input with pack_layout,
 * computed at root, storage order as packed) and reads only through that copy.
 * In input order; empty when there are none.
 */
std::vector<PrepackedInput> prepackable_inputs(const Schedule &s, const std::vector<int> &constant_inputs);

/**
 * `source` stored as the packed copy p stands for: element
 * [o, a..., b..., i] = source[a..., o * factor + i, b...]. Any dtype.
 * Raises ShapeError naming the stage when source's shape is not p.source_shape.
 */
NDArray pack_input(const NDArray &source, const PrepackedInput &p);

}  // namespace tetune
