// The Halide target that "host" means: built from the CPU's own CPUID
// report, never from Halide 14's guess of a CPU model.
//
// Halide 14's get_host_target() calls AMD Zen 4 `avx512_sapphirerapids`, and
// LLVM then emits AVX512-FP16 instructions that Zen 4 lacks (SIGILL). On
// x86-64 the target here is runtime/cpu_features.h's choose_x86_target(): a
// feature only when every extension it lets LLVM use is present.
#pragma once

#include <string>
#include <vector>

namespace tetune::codegen {

/**
 * Halide target string for this machine's CPU, e.g.
 * "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41"
 * on Zen 4. Non-x86 hosts: Halide's own detection. Computed once.
 */
const std::string &host_halide_target();

/** Why host_halide_target() leaves out a larger Halide feature or usable extensions ("" when nothing, and off x86-64). */
const std::string &host_target_note();

/** What Halide 14's get_host_target() reports for this machine (shown by `tetune target`; never compiled for). */
std::string halide_builtin_host_target();

/**
 * The CPU extensions `halide_target` would use that this CPU lacks, sorted
 * (empty when JIT code for it can run here, and for non-x86 targets).
 */
std::vector<std::string> host_lacks(const std::string &halide_target);

}  // namespace tetune::codegen
