// Halide 14 autoschedulers (Adams2019, Mullapudi2016) on plain Halide
// definitions of GEMM and conv2d, JIT-compiled for the host.
//
//   GEMM:  C(j, i) = sum_k A(k, i) * B(j, k)   (Halide dim 0 is innermost, so
//          these are the row-major A[M][K], B[K][N], C[M][N] of the harness)
//   conv:  out(x, y, k, n) = sum_{q,r,c} w(q, r, c, k) * in_padded(x*st+q-pad, y*st+r-pad, c, n)
//          (dims reversed NCHW / OIHW; zero padding via BoundaryConditions)
//
// Threads: MachineParams.parallelism = threads for the autoscheduler, and
// HL_NUM_THREADS = threads in the environment for the JIT runtime's thread
// pool (the parent sets it before exec'ing the child; Halide reads it when the
// pool first starts, so in --inprocess mode only the first value counts).
//
// Search budget: Adams2019 runs with its built-in (baseline) cost-model
// weights unless HL_WEIGHTS_DIR is set. HL_BEAM_SIZE / HL_NUM_PASSES default to
// the values below unless already set in the environment. The autoscheduling
// time is reported in the note, not in the kernel time.
//
// The reduction is a separate Func ("prod" / "conv") consumed by a pure output
// Func, the shape the Halide autoscheduler apps use (apps/conv_layer): it lets
// the autoschedulers tile the output and compute the reduction per tile.
// TETUNE_BENCH_PRINT_SCHEDULE=1 prints the generated schedule to stderr.
#include <Halide.h>

#include "codegen/host_target.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "bench/baselines/baselines.h"

namespace tetune {
namespace bench {

namespace {

std::string plugin_dir() {
  const char *d = std::getenv("TETUNE_HALIDE_PLUGIN_DIR");
  return d && *d ? d : "/usr/lib/x86_64-linux-gnu/halide14";
}

void load_plugin_once(const std::string &scheduler) {
  static std::mutex mu;
  static bool adams = false, mullapudi = false;
  std::lock_guard<std::mutex> lock(mu);
  if (scheduler == "Adams2019" && !adams) {
    Halide::load_plugin(plugin_dir() + "/libautoschedule_adams2019.so");
    adams = true;
  } else if (scheduler == "Mullapudi2016" && !mullapudi) {
    Halide::load_plugin(plugin_dir() + "/libautoschedule_mullapudi2016.so");
    mullapudi = true;
  }
}

}  // namespace

BenchResult halide_autosched(const BenchSpec &s, int threads, const std::string &scheduler) {
  using namespace Halide;
  const std::string impl = scheduler == "Adams2019" ? "halide-adams2019" : "halide-mullapudi2016";
  try {
    load_plugin_once(scheduler);
    if (scheduler == "Adams2019") {
      ::setenv("HL_BEAM_SIZE", "32", /*overwrite=*/0);
      ::setenv("HL_NUM_PASSES", "1", 0);
    }
    const BenchData &d = bench_data(s);
    std::vector<float> out_buf(s.output_elems());

    ImageParam in0(Float(32), s.kind == BenchKind::kGemm ? 2 : 4, "in0");
    ImageParam in1(Float(32), s.kind == BenchKind::kGemm ? 2 : 4, "in1");
    Func out("out");
    Buffer<float> b0, b1, bo;
    if (s.kind == BenchKind::kGemm) {
      const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
      Var i("i"), j("j");
      RDom r(0, K, "r");
      Func prod("prod");
      prod(j, i) = 0.0f;
      prod(j, i) += in0(r, i) * in1(j, r);
      out(j, i) = prod(j, i);
      in0.set_estimates({{0, K}, {0, M}});
      in1.set_estimates({{0, N}, {0, K}});
      out.set_estimates({{0, N}, {0, M}});
      b0 = Buffer<float>(const_cast<float *>(d.input0.data()), K, M);
      b1 = Buffer<float>(const_cast<float *>(d.input1.data()), N, K);
      bo = Buffer<float>(out_buf.data(), N, M);
    } else {
      const int W = static_cast<int>(s.in_w), H = static_cast<int>(s.in_h),
                C = static_cast<int>(s.in_c), Nb = static_cast<int>(s.batch),
                Ko = static_cast<int>(s.out_c), R = static_cast<int>(s.kh),
                S = static_cast<int>(s.kw), OW = static_cast<int>(s.out_w()),
                OH = static_cast<int>(s.out_h()), st = static_cast<int>(s.stride),
                pad = static_cast<int>(s.pad);
      Var x("x"), y("y"), k("k"), n("n");
      Func padded = BoundaryConditions::constant_exterior(in0, 0.0f);
      RDom r(0, S, 0, R, 0, C, "r");
      Func conv("conv");
      conv(x, y, k, n) = 0.0f;
      conv(x, y, k, n) +=
          in1(r.x, r.y, r.z, k) * padded(x * st + r.x - pad, y * st + r.y - pad, r.z, n);
      out(x, y, k, n) = conv(x, y, k, n);
      in0.set_estimates({{0, W}, {0, H}, {0, C}, {0, Nb}});
      in1.set_estimates({{0, S}, {0, R}, {0, C}, {0, Ko}});
      out.set_estimates({{0, OW}, {0, OH}, {0, Ko}, {0, Nb}});
      b0 = Buffer<float>(const_cast<float *>(d.input0.data()), W, H, C, Nb);
      b1 = Buffer<float>(const_cast<float *>(d.input1.data()), S, R, C, Ko);
      bo = Buffer<float>(out_buf.data(), OW, OH, Ko, Nb);
    }

    Pipeline p(out);
    const Target target(tetune::codegen::host_halide_target());  // from CPUID, not Halide's model guess
    // parallelism, last-level cache (bytes), balance (load vs arith cost).
    const MachineParams mp(threads, 32ull * 1024 * 1024, 40.0f);
    const auto t0 = std::chrono::steady_clock::now();
    AutoSchedulerResults res = p.auto_schedule(scheduler, target, mp);
    if (std::getenv("TETUNE_BENCH_PRINT_SCHEDULE")) {
      std::fprintf(stderr, "---- %s schedule for %s ----\n%s\n", scheduler.c_str(),
                   s.name.c_str(), res.schedule_source.c_str());
    }
    const auto t1 = std::chrono::steady_clock::now();
    p.compile_jit(target);
    const auto t2 = std::chrono::steady_clock::now();
    in0.set(b0);
    in1.set(b1);

    auto run = [&] { p.realize(bo, target); };  // without the target, realize() recompiles for Halide's own host guess
    std::ostringstream note;
    note.precision(3);
    note << scheduler << " autoschedule " << std::chrono::duration<double>(t1 - t0).count()
         << " s, JIT " << std::chrono::duration<double>(t2 - t1).count() << " s";
    if (scheduler == "Adams2019") {
      note << ", beam " << std::getenv("HL_BEAM_SIZE") << " passes " << std::getenv("HL_NUM_PASSES")
           << (std::getenv("HL_WEIGHTS_DIR") ? ", HL_WEIGHTS_DIR weights" : ", built-in weights");
    }
    return check_and_time(s, impl, threads, run, out_buf.data(), note.str());
  } catch (const Halide::Error &e) {
    throw tetune::CodegenError(impl + ": Halide error: " + e.what());
  }
}

}  // namespace bench
}  // namespace tetune
