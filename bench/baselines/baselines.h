// Baseline impls of the kernel benchmark, one file per library. Registered in
// register.cc under the names "onednn", "openblas", "halide-adams2019" and
// "halide-mullapudi2016".
#pragma once

#include <string>

#include "bench/harness.h"

namespace tetune {
namespace bench {

BenchResult onednn_gemm(const BenchSpec &spec, int threads);    // onednn_gemm.cc
BenchResult onednn_conv(const BenchSpec &spec, int threads);    // onednn_conv.cc
BenchResult openblas_gemm(const BenchSpec &spec, int threads);  // openblas_gemm.cc
BenchResult openblas_conv(const BenchSpec &spec, int threads);  // openblas_conv.cc
/** scheduler: "Adams2019" or "Mullapudi2016" (halide_autosched.cc). */
BenchResult halide_autosched(const BenchSpec &spec, int threads, const std::string &scheduler);

}  // namespace bench
}  // namespace tetune
