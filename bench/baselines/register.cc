// Registers the baseline impls (see bench/README.md for adding more).
#include "bench/baselines/baselines.h"

namespace tetune {
namespace bench {
namespace {

BenchResult onednn(const BenchSpec &s, int t) {
  return s.kind == BenchKind::kGemm ? onednn_gemm(s, t) : onednn_conv(s, t);
}
BenchResult openblas(const BenchSpec &s, int t) {
  return s.kind == BenchKind::kGemm ? openblas_gemm(s, t) : openblas_conv(s, t);
}

TETUNE_BENCH_REGISTER_IMPL_ORDERED("onednn", onednn, 50);
TETUNE_BENCH_REGISTER_IMPL_ORDERED("openblas", openblas, 51);
TETUNE_BENCH_REGISTER_IMPL_ORDERED(
    "halide-adams2019", [](const BenchSpec &s, int t) { return halide_autosched(s, t, "Adams2019"); },
    60);
TETUNE_BENCH_REGISTER_IMPL_ORDERED(
    "halide-mullapudi2016",
    [](const BenchSpec &s, int t) { return halide_autosched(s, t, "Mullapudi2016"); }, 61);

}  // namespace
}  // namespace bench
}  // namespace tetune
