// The x86-64 instruction sets this CPU and its OS can run, read from CPUID,
// and the Halide target they allow.
//
// Why not Halide::get_host_target(): Halide 14 guesses a CPU model from the
// family/model numbers and turns on every instruction set of that model. It
// calls AMD Zen 4 (AVX-512 with VNNI and BF16, but no AVX512-FP16 and no AMX)
// `avx512_sapphirerapids`, and LLVM then emits AVX512-FP16 (`vmovw`): SIGILL.
// Here a Halide feature is enabled only when every extension it lets LLVM use
// is reported by CPUID and its register state is enabled by the OS (XCR0).
//
// Compiler-free (no Halide): the exported-model runtime uses it to refuse a
// library compiled for instructions this CPU lacks.
//
// Extension names are LLVM's (`avx512fp16`, `amx-tile`), as in LLVM's
// X86TargetParser.def, since those are what a Halide target turns on.
// Sources: Intel SDM vol. 2A, CPUID leaves 01H and 07H (sub-leaves 0 and 1),
// vol. 1 section 13.3 (XCR0 state components); AMD APM vol. 3, appendix E.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tetune::rt {

/** The raw CPUID and XCR0 words the decision is made from (all zero off x86). */
struct CpuidWords {
  std::string vendor;            ///< "GenuineIntel", "AuthenticAMD", ...
  uint32_t family = 0, model = 0;  ///< display family / model (extended fields folded in)
  uint32_t leaf1_ecx = 0, leaf1_edx = 0;
  uint32_t leaf7_ebx = 0, leaf7_ecx = 0, leaf7_edx = 0;  ///< leaf 07H sub-leaf 0
  uint32_t leaf7_1_eax = 0;                               ///< leaf 07H sub-leaf 1
  uint32_t ext1_ecx = 0;                                  ///< leaf 80000001H
  uint64_t xcr0 = 0;             ///< XGETBV(0); 0 when OSXSAVE is off
};

/** Reads this CPU's CPUID words (x86-64 only; all zero elsewhere). Never throws. */
CpuidWords read_cpuid();

/**
 * The extensions the words say are usable: present in CPUID and, for AVX,
 * AVX-512 and AMX, with their register state enabled in XCR0. Sorted LLVM
 * names ("avx2", "avx512f", "avx512fp16", "amx-tile", ...).
 */
std::set<std::string> usable_extensions(const CpuidWords &words);

/** usable_extensions(read_cpuid()), computed once per process. */
const std::set<std::string> &host_extensions();

/**
 * The extensions a Halide 14 x86 target string ("x86-64-linux-avx2-fma",
 * features separated by '-') lets LLVM use, through the features it names
 * and the CPU model (-mcpu) Halide derives from them (`avx512_skylake` ->
 * skylake-avx512, `avx512_sapphirerapids` -> sapphirerapids, ...). Sorted,
 * unique. Non-x86 and unknown tokens add nothing (GPU features, "jit", ...).
 */
std::vector<std::string> required_extensions(const std::string &halide_target);

/** required_extensions(halide_target) that `have` lacks, sorted. */
std::vector<std::string> missing_extensions(const std::string &halide_target,
                                            const std::set<std::string> &have);

/** The Halide target chosen for a CPU, and what it leaves unused. */
struct X86TargetChoice {
  /// e.g. "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41"
  std::string halide_target;
  /// usable extensions that no Halide 14 feature within reach enables (Zen 4: avx512bf16, avx512vnni, ...)
  std::vector<std::string> unused_extensions;
  /// why a larger Halide feature was not taken, in words; "" when nothing was left out
  std::string note;
};

/**
 * The largest Halide 14 x86-64 target whose every feature fits `have`: each
 * feature is taken only when all of required_extensions() for it are in
 * `have` (never a feature for a CPU model the CPU merely resembles). Zen 4
 * gets avx512_cannonlake, since avx512_sapphirerapids would also use
 * avx512fp16 and AMX. `os` is Halide's OS name ("linux").
 */
X86TargetChoice choose_x86_target(const std::set<std::string> &have, const std::string &os = "linux");

/** A CPU's vendor / family / model in words, e.g. "AuthenticAMD family 25 model 17". */
std::string describe(const CpuidWords &words);

}  // namespace tetune::rt
