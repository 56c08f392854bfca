// Timing GPU work with CUDA events, for the measurement runner
// (measure_runner.h). The CUDA driver API is loaded at run time with dlopen,
// so the runner keeps no link-time CUDA dependency and still starts (and
// measures CPU batches) on machines without CUDA.
//
// Which context and stream the events go to. Halide 14's CUDA runtime
// (src/runtime/cuda.cpp) creates its own context on the first kernel call
// (cuCtxCreate on the chosen device, not the device's primary context), keeps
// it in a global, and pushes it around every driver call and pops it after, so
// between kernel calls no context is current on the caller's thread
// (cuCtxGetCurrent returns null there). Kernels are launched on the stream
// halide_cuda_get_stream returns, by default nullptr: that context's legacy
// default stream. halide_cuda_stream() therefore asks the kernel library's
// own runtime for both, through the functions it exports; the primary context
// is no fallback, as events recorded in another context are not ordered with
// Halide's kernels.
#pragma once

#include <memory>
#include <string>

namespace tetune {
namespace rt {

/** A CUDA context and stream as opaque driver handles (CUcontext, CUstream). */
struct CudaStream {
  void *context = nullptr;
  void *stream = nullptr;  // nullptr: the context's legacy default stream
};

/**
 * The context and stream that the Halide CUDA runtime linked into a loaded
 * library (library_handle from dlopen) launches its kernels on: its exported
 * halide_cuda_acquire_context (create = false, released again at once, since
 * an overriding acquire may block until released) and, when exported,
 * halide_cuda_get_stream (else the default stream). Call it after a kernel of
 * the library ran: the runtime creates its context lazily. Raises
 * RuntimeError when the library exports no halide_cuda_acquire_context /
 * halide_cuda_release_context, the call fails, or no context exists yet.
 */
CudaStream halide_cuda_stream(void *library_handle);

/**
 * Elapsed GPU time of the work submitted to one stream between start() and
 * stop_ms(), from two CUDA events (cuEventRecord on the stream,
 * cuEventSynchronize, cuEventElapsedTime: milliseconds, resolution about
 * 0.5 us per the CUDA driver API documentation).
 *
 * The constructor loads `driver` with dlopen (libcuda.so.1, the NVIDIA
 * driver's versioned name, by default), resolves cuCtxPushCurrent_v2,
 * cuCtxPopCurrent_v2, cuEventCreate, cuEventRecord, cuEventSynchronize,
 * cuEventElapsedTime_v2 (or cuEventElapsedTime on drivers older than CUDA
 * 12.8, which lack the _v2 entry point; same signature) and
 * cuEventDestroy_v2, pushes `where.context` on the calling thread (events
 * belong to the current context) and creates the two events in it. The
 * destructor destroys them and pops the context. Every failure raises
 * RuntimeError starting "CUDA event timing:" and naming the library, the
 * missing symbol, or the failed call with its CUresult (and error name when
 * the driver gives one); a null context is refused before the driver is
 * loaded. Not copyable; use it on one thread.
 */
class CudaEventTimer {
 public:
  explicit CudaEventTimer(const CudaStream &where, const std::string &driver = "libcuda.so.1");
  ~CudaEventTimer();
  CudaEventTimer(const CudaEventTimer &) = delete;
  CudaEventTimer &operator=(const CudaEventTimer &) = delete;

  /** Records the start event on the stream. */
  void start();
  /** Records the stop event, waits for it and returns the milliseconds since the start event. */
  double stop_ms();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/**
 * The name of CUDA device 0 as the driver reports it (cuDeviceGetName, e.g.
 * "NVIDIA H100 80GB HBM3"): the device part of a CUDA target key. "" when
 * libcuda.so.1 cannot be loaded or no device answers. Initialises CUDA in this
 * process: a parent that forks children which use CUDA must call it after them.
 */
std::string cuda_device_name();

}  // namespace rt
}  // namespace tetune
