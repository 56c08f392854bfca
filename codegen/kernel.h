// Compiled kernels: a scheduled compute built by Halide for a target.
//
// Kernel::build JIT-compiles for the host CPU (all of its vector features,
// e.g. AVX-512) for measuring; compile_object writes an AOT object file and C
// header for export. Buffers are NDArrays in the TE layout (row-major).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/loop_nest.h"
#include "codegen/prepack.h"
#include "schedule/schedule.h"
#include "base/ndarray.h"

namespace tetune {

/**
 * A code-generation target. "host" = this CPU with the features its CPUID
 * reports (codegen/host_target.h; not Halide's CPU-model guess);
 * "cuda" = host + CUDA (capability 8.6 PTX). Any Halide target string
 * ("x86-64-linux-avx2-fma") is also accepted, for AOT export to another
 * machine; Kernel::build (JIT) raises CodegenError when it uses an extension
 * this CPU lacks. Raises CodegenError if unknown.
 */
struct Target {
  std::string spec = "host";
  bool is_gpu() const;
  /** The Halide target string this resolves to. */
  std::string halide_string() const;
  /** The CPU's widest vector unit (resolves the target once); all zero / false for a GPU target. */
  struct VectorUnit {
    int lanes = 0;      // fp32 lanes: 16 with AVX-512, 8 with AVX / AVX2, else 4 (SSE)
    int registers = 0;  // vector registers of that width: 32 with AVX-512, else 16
    bool fma = false;   // fused multiply-add (FMA3: AVX2-class and later)
  };
  VectorUnit vector_unit() const;
};

/**
 * Sets the number of worker threads used by JIT kernels in this process.
 * Halide reads it once, so it must be called before the first kernel runs;
 * a later call with a different count than the first run used (the one set,
 * else the default: $HL_NUM_THREADS or the cores) raises RuntimeError.
 */
void set_num_threads(int n);
int num_threads();

/** Options of Kernel::build (additive; the defaults are the historical behaviour). */
struct BuildOptions {
  /**
   * true: also produce the loop nest and the lowered statement (loop_nest(),
   * lowered_stmt()), which costs one extra lowering. false: JIT only (for
   * measuring, where features are computed elsewhere); loop_nest() is then
   * empty and lowered_stmt() "". The compiled code is identical.
   */
  bool inspect = true;
  /**
   * false (CPU targets only): compile without Halide's runtime assertions and
   * bounds-query code (Target::NoAsserts, NoBoundsQuery). Kernel::run checks
   * the shapes and dtypes of the buffers itself either way; what is lost is
   * Halide's own check that a schedule reads no input outside its buffer,
   * which tetune's tail strategies and clamped pads rule out by construction
   * and the measurer's reference check would notice. Measured on GEMM 512 /
   * conv C64 56x56 candidates, 2 cores: JIT compile 130 -> 90 ms and
   * 300 -> 227 ms. The measurer uses it (MeasureOptions::runtime_checks);
   * every other build keeps the checks.
   */
  bool runtime_checks = true;
  /**
   * Inputs the caller passes already packed (codegen/prepack.h,
   * prepackable_inputs of the schedule): the kernel expects them in their
   * packed_shape and does not pack them itself.
   */
  std::vector<PrepackedInput> prepacked;
  /**
   * Each task of a parallel loop prefetches, into its core's L2, its
   * thread's next task's panels of the prepacked inputs
   * (codegen/next_task_prefetch.h). The values computed are the same either
   * way.
   */
  bool prefetch_packed = true;
};

/**
 * Compiles (never runs) a trivial pipeline for target so that the process's
 * shared Halide JIT runtime and LLVM are initialised. Processes fork()ed
 * afterwards inherit them and their first Kernel::build is much cheaper.
 * Starts no threads (Halide's thread pool is created by the first run).
 * No-op for GPU targets. Raises CodegenError on failure.
 */
void warm_up_jit(const Target &target = Target{}, const BuildOptions &options = BuildOptions{});

/**
 * A dense, row-major host buffer the caller owns and the kernel borrows for
 * one call (how the Python bindings run on NumPy arrays without copying).
 * data holds the product of shape's extents elements of dtype, aligned to the
 * element size, and stays valid until the call returns.
 */
struct BufferView {
  void *data = nullptr;
  Shape shape;
  DType dtype;
};

class Kernel {
 public:
  /**
   * Lowers and JIT-compiles s. Raises CodegenError (with Halide's message) on failure.
   * For a GPU target the schedule is first checked against GpuLimits (check_gpu_schedule,
   * ScheduleError); compiling needs no GPU, run() raises RuntimeError when no CUDA
   * driver/GPU is found (see cuda_device_available in codegen/gpu_runtime.h).
   */
  static Kernel build(const Schedule &s, const Target &target = Target{});
  static Kernel build(const Schedule &s, const Target &target, const BuildOptions &options);

  /** Runs on inputs (in Schedule::inputs() order, prepacked ones packed) and returns fresh outputs. */
  std::vector<NDArray> run(const std::vector<NDArray> &inputs) const;
  /** Runs into preallocated outputs (Schedule::outputs() order, exact shapes). */
  void run(const std::vector<NDArray> &inputs, std::vector<NDArray> &outputs) const;

  /**
   * Runs on borrowed buffers, in place: inputs in Schedule::inputs() order,
   * outputs in Schedule::outputs() order. Raises RuntimeError naming the
   * tensor for a buffer of the wrong count, shape or dtype, or a null data.
   */
  void run_views(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs) const;
  /** median_ms (below) on borrowed buffers. */
  double median_ms_views(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs, int warmup = 1,
                         int repeat = 10) const;

  /**
   * Median wall time in ms of `repeat` runs into outputs after `warmup` runs
   * (steady_clock, each run timed on its own). For a GPU target the inputs
   * are copied to the device once, each run is followed by a device sync and
   * copies nothing, and the outputs come back after the last run: the kernels'
   * time plus launch overhead, not the transfers.
   */
  double median_ms(const std::vector<NDArray> &inputs, std::vector<NDArray> &outputs, int warmup = 1, int repeat = 10) const;

  /** The loop nest Halide produced, for features and inspection. */
  const LoopNest &loop_nest() const;
  /** Halide's pseudo-code of the lowered statement. */
  std::string lowered_stmt() const;

  Kernel(const Kernel &) = default;
  Kernel &operator=(const Kernel &) = default;
  ~Kernel();

  struct Impl;

 private:
  explicit Kernel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  double gpu_median_ms(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs, int warmup,
                       int repeat) const;
  // Raises RuntimeError for buffers of the wrong count, shape or dtype, or a CUDA kernel without a GPU; true for a GPU target.
  bool check_call(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs) const;
  std::shared_ptr<Impl> impl_;
};

/**
 * AOT: writes PATH_PREFIX.o (with the Halide runtime unless no_runtime) and
 * PATH_PREFIX.h declaring `int fn_name(halide_buffer_t *in..., halide_buffer_t *out...)`;
 * the `prepacked` inputs are taken in their packed shape (BuildOptions::prepacked)
 * and, with prefetch_packed, fetched a parallel task ahead (BuildOptions::prefetch_packed).
 * For a GPU target the schedule is checked with check_gpu_schedule (ScheduleError), the
 * object embeds the device code and the PTX is also written to PATH_PREFIX.ptx.
 * Raises CodegenError on failure.
 */
void compile_object(const Schedule &s, const std::string &path_prefix, const std::string &fn_name,
                    const Target &target = Target{}, bool no_runtime = false,
                    const std::vector<PrepackedInput> &prepacked = {}, bool prefetch_packed = true);

/**
 * Writes the target's assembly of the kernel (no runtime) to `path`, for
 * reading the register block of a schedule. Raises CodegenError on failure.
 */
void compile_assembly(const Schedule &s, const std::string &path, const std::string &fn_name,
                      const Target &target = Target{});

/** Only the Halide runtime for target, as an object file (to link with no_runtime objects). */
void compile_runtime(const std::string &path, const Target &target = Target{});

/** FLOPs of one evaluation of the outputs' computes (multiply-add = 2), for GFLOP/s. */
double flop_count(const std::vector<Tensor> &outputs);

}  // namespace tetune
