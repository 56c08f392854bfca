// The measuring side of remote measurement (autotune/remote): runs a batch of
// candidate kernels written by the compiler machine and times them, with no
// compiler here (links libdl and libpthread only; a CUDA batch needs only the
// NVIDIA driver).
//
// A batch directory holds
//   batch.json    {"format": "tetune-measure-batch-1", "library": "batch.so",
//                  "gpu": false, "threads": 2, "warmup": 1, "repeat": 3,
//                  "min_repeat_ms": 20, "max_number": 1000, "tolerance": 1.001e-3,
//                  "timeout_s": 20, "inputs": ["in_0.npy", ...],
//                  "references": ["ref_0.npy", ...], "kernels": ["c0", "c1", ...],
//                  "kernel_inputs": {"c1": {"1": "packed_1_1x16.npy"}}}
//   batch.so      the kernels (codegen/kernel_library.h), NAME_argv(inputs..., outputs...)
//   in_*.npy      the inputs, ref_*.npy the reference outputs
//   packed_*.npy  optional (kernel_inputs): a kernel's own array for an input,
//                 a constant weight packed as its schedule reads it (codegen/prepack.h)
// and run_batch() writes results.json:
//   {"format": "tetune-measure-results-1", "device": "<GPU name or CPU model>",
//    "cpuinfo": "<this machine's /proc/cpuinfo>",
//    "results": [{"kernel": "c0", "error_code": 0, "error_msg": "", "costs_ms": [..],
//                 "clock": "steady_clock"}, ...]}
// "clock" names what costs_ms were measured with: "steady_clock" (CPU batches)
// or "cuda_event" (GPU batches); "" when the kernel was not timed.
// error_code values are those of tuning_logs/error_code.h (0 no error,
// 2 runtime error, 3 timeout, 4 wrong answer, 5 crash, 7 other).
//
// Each kernel runs in its own forked child (a crash or hang loses only that
// kernel; the child is killed after timeout_s), strictly one at a time. The
// child runs the kernel once, compares every output with its reference
// (max |out - ref| / max |ref| <= tolerance, else wrong answer), then times it
// as the local measurer does: `warmup` runs, `number` runs per repeat chosen so
// that a repeat lasts about min_repeat_ms (at most max_number), `repeat`
// repeats, cost = repeat time / number, in ms. On a GPU the outputs are
// copied back before the check, and a repeat is timed with CUDA events
// recorded before its first and after its last call on the stream the
// kernels run on (cuda_events.h: driver loaded with dlopen, in the Halide
// runtime's own context), so a cost is the stream's time from the first
// launch to the end of the last kernel (device idle gaps between launches
// included), not the host's time to launch; when event timing fails the
// kernel gets a runtime error, never a wall-clock cost.
#pragma once

#include <string>
#include <vector>

namespace tetune {
namespace rt {

struct KernelMeasurement {
  std::string kernel;
  int error_code = 0;
  std::string error_msg;
  std::vector<double> costs_ms;
  std::string clock;  ///< "steady_clock", "cuda_event", or "" when not timed
};

/**
 * Runs the batch in dir and writes dir/results.json (through a temporary
 * file). Raises ParseError naming the file for a missing or malformed
 * batch.json / .npy, RuntimeError when batch.so cannot be loaded.
 * Test hook: $TETUNE_RUNNER_FAULT = "segfault:KERNEL" or "hang:KERNEL".
 */
std::vector<KernelMeasurement> run_measure_batch(const std::string &dir);

}  // namespace rt
}  // namespace tetune
