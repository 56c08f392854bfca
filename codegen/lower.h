// Lowering of a TE compute + Schedule to a Halide 14 pipeline (internal).
//
// Each stage becomes a Halide Func whose pure arguments are the stage's
// spatial axes innermost first (Halide's dimension 0 is the fastest, the
// reverse of TE's row-major shape). A reduction becomes a pure definition
// holding the identity and one update over an RDom of the reduce axes. The
// schedule's splits, fuses, loop order, annotations and compute locations are
// replayed as Halide schedule calls on both definitions (steps that touch
// reduce axes only on the update).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <Halide.h>

#include "codegen/prepack.h"
#include "schedule/schedule.h"

namespace tetune {
namespace codegen {

struct LoweredPipeline {
  Halide::Pipeline pipeline;
  std::vector<Halide::ImageParam> params;  // one per Schedule::inputs(), same order (a prepacked one: packed shape)
  std::vector<Halide::Func> outputs;       // one per Schedule::outputs(), same order
  std::map<std::string, Halide::Func> funcs;  // by stage name
  /** params and outputs as Halide Arguments, for AOT compilation. */
  std::vector<Halide::Argument> arguments() const;
};

/** Halide type of a dtype; float16 / bfloat16 / bool map to Halide's. */
Halide::Type halide_type(DType t);

/**
 * Lowers s. A loop bound to a "blockIdx.*" or "threadIdx.*" thread tag
 * (Schedule::bind) becomes a Halide gpu_blocks / gpu_threads loop. The param
 * of each `prepacked` input has its packed shape and stands for the packed copy
 * (codegen/prepack.h), which is then not computed; with prefetch_packed, each
 * task of a parallel loop prefetches the next task's panels of it
 * (codegen/next_task_prefetch.h). Raises CodegenError
 * (with the Halide message) when Halide rejects the schedule, or naming a
 * prepacked input that its stage does not pack.
 */
LoweredPipeline lower(const Schedule &s, const std::vector<PrepackedInput> &prepacked = {},
                      bool prefetch_packed = true);

/**
 * A stage or placeholder name as it appears in Halide names: characters other
 * than [A-Za-z0-9_] become '_' (Halide reserves '.'), and a leading digit or an
 * empty name gets a "t" prefix. The features' loop nest uses it to name buffers
 * as the lowered code does.
 */
std::string sanitize(const std::string &name);

}  // namespace codegen
}  // namespace tetune
