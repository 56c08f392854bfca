// "tetune-hand" rows: the hand schedules of schedules/hand_schedules.h, built by
// tetune's codegen and timed by the shared harness (checked against the
// reference loop first).
#include <cstring>

#include "schedules/hand_schedules.h"
#include "bench/harness.h"
#include "codegen/kernel.h"
#include "te/ops/conv.h"
#include "te/ops/matmul.h"

namespace tetune {
namespace bench {
namespace {

using schedules::GemmTiling;
using schedules::hand_conv_schedule;
using schedules::hand_packed_gemm_schedule;
using schedules::packed_gemm;

NDArray to_ndarray(const std::vector<float> &v, const Shape &shape) {
  NDArray a(shape, float32());
  std::memcpy(a.raw(), v.data(), v.size() * sizeof(float));
  return a;
}

BenchResult run_kernel(const BenchSpec &spec, int threads, const Schedule &s, const std::vector<NDArray> &inputs,
                       const std::string &note) {
  set_num_threads(threads);
  Kernel k = Kernel::build(s);
  auto outs = std::make_shared<std::vector<NDArray>>(k.run(inputs));
  return check_and_time(
      spec, "tetune-hand", threads, [&] { k.run(inputs, *outs); },
      [&](float *dst) { std::memcpy(dst, (*outs)[0].raw(), (*outs)[0].nbytes()); },
      [&] { std::memset((*outs)[0].raw(), 0xff, (*outs)[0].nbytes()); }, note);
}

BenchResult tetune_hand(const BenchSpec &spec, int threads) {
  const BenchData &d = bench_data(spec);
  if (spec.kind == BenchKind::kGemm) {
    Tensor A = placeholder({spec.M, spec.K}, float32(), "A"), B = placeholder({spec.K, spec.N}, float32(), "B");
    GemmTiling t;
    t.tile_i = 64, t.tile_j = 256, t.reg_i = 8, t.reg_j = 32, t.unroll_k = 4;
    auto outs = packed_gemm(A, B, t.reg_j);
    std::vector<NDArray> in = {to_ndarray(d.input0, A.shape()), to_ndarray(d.input1, B.shape())};
    return run_kernel(spec, threads, hand_packed_gemm_schedule(outs, t), in, "packed B, 8x32 register block");
  }
  Tensor X = placeholder({spec.batch, spec.in_c, spec.in_h, spec.in_w}, float32(), "x");
  Tensor W = placeholder({spec.out_c, spec.in_c, spec.kh, spec.kw}, float32(), "w");
  Tensor Y = ops::conv2d(X, W, Tensor(), {spec.stride, spec.stride}, {spec.pad, spec.pad, spec.pad, spec.pad});
  std::vector<NDArray> in = {to_ndarray(d.input0, X.shape()), to_ndarray(d.input1, W.shape())};
  return run_kernel(spec, threads, hand_conv_schedule({Y}), in, "pad inlined, 8 channels x 2 rows x 8 columns register block");
}

}  // namespace

TETUNE_BENCH_REGISTER_IMPL_ORDERED("tetune-hand", tetune_hand, 5);

}  // namespace bench
}  // namespace tetune
