// Reads a LoopNest out of a lowered Halide module (internal to codegen).
#pragma once

#include <string>

#include <Halide.h>

#include "codegen/loop_nest.h"

namespace tetune {
namespace codegen {

LoopNest read_loop_nest(const Halide::Module &m);
/** Halide's pseudo-code for the module's functions. */
std::string stmt_text(const Halide::Module &m);
/** Writes the GPU device source (PTX for CUDA) embedded in m; CodegenError if none. */
void write_gpu_source(const Halide::Module &m, const std::string &path);

}  // namespace codegen
}  // namespace tetune
