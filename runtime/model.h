// Compiler-free executor of a model exported by `tetune compile` (OUT/):
// reads OUT/graph.bin (execution plan) and OUT/weights.bin, dlopen()s
// OUT/libmodel.so (AOT Halide kernels + the Halide runtime + a kernel table)
// and runs the groups in order on preallocated, 64-byte aligned buffers
// (buffers are shared between values by the exporter's liveness plan; view
// groups alias their input). Links only libdl and libpthread: no Halide
// compiler (check: ldd bazel-bin/runtime/tetune_run | grep -c Halide == 0).
//
//   auto m = tetune::rt::Model::load("OUT");
//   m->set_num_threads(2);
//   std::vector<NDArray> y = m->run({x});
//
// Errors name the file: a missing / corrupted graph.bin, weights.bin or
// libmodel.so raises tetune::ParseError or RuntimeError ("OUT/weights.bin: ...").
// Before anything is dlopen()ed, load() checks OUT/manifest.json
// (export_check.h): a library compiled for CPU extensions this CPU lacks, or
// a file whose size or SHA-256 differs from the manifest, raises
// ExportCheckError naming the file (the command lines exit with code 2).
// A CUDA export (`tetune compile --target cuda`) keeps its weights, planned
// buffers and inputs in device memory from load() on (runtime/device_memory.h):
// a run uploads the inputs, launches every kernel on the device, and
// downloads the outputs, which waits for the kernels: one synchronisation
// per run.
// A Model is not thread-safe (its buffers are reused between runs).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/plan.h"
#include "base/ndarray.h"

namespace tetune {
namespace rt {

class Model {
 public:
  static std::unique_ptr<Model> load(const std::string &dir);
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  const Plan &plan() const { return plan_; }
  const std::string &dir() const { return dir_; }
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  Shape input_shape(size_t i) const;

  /**
   * Threads of parallel loops; call before the first run. Kernels run their
   * parallel loops on the process-wide SpinPool (spin_pool.h), shared by all
   * loaded models; a library without halide_set_custom_do_par_for uses
   * Halide's own pool (halide_set_num_threads).
   */
  void set_num_threads(int n);

  /** Inputs in graph-input order; ShapeError naming the input on a count / shape / dtype mismatch. */
  std::vector<NDArray> run(const std::vector<NDArray> &inputs);
  std::map<std::string, NDArray> run(const std::map<std::string, NDArray> &inputs);

  /**
   * Per-kernel timing: when on, run() records the wall time (ms) of each
   * kernel call; last_call_ms()[i] belongs to call_names()[i] (the kernel
   * groups in execution order, "group:kernel"). Off by default (it adds a
   * clock read per kernel; on a CUDA export also a device sync per kernel,
   * so the time is the kernel's, not its launch's).
   */
  void set_profiling(bool on);
  const std::vector<double> &last_call_ms() const;
  /**
   * With profiling on, also call each kernel a second time at once and
   * record that time in last_warm_call_ms() (ms, per call as call_names()).
   * The second call finds the kernel's code, weights and inputs where its
   * first left them, so first minus warm is what the model's cold caches
   * (weights from memory, activations another kernel wrote) cost it: the
   * gap between a task timed alone and the same task in the model. The
   * outputs do not change: a call that reads no buffer it writes writes the
   * same values twice. A call that does (none in a plan today, which never
   * shares a buffer between one group's input and output) is not rerun and
   * gets NaN.
   */
  void set_warm_rerun(bool on);
  const std::vector<double> &last_warm_call_ms() const;
  std::vector<std::string> call_names() const;

  /** Bytes of the planned buffers / of the weights. */
  int64_t buffer_bytes() const;
  int64_t weights_bytes() const { return plan_.weights_bytes; }

  struct Impl;

 private:
  Model() = default;
  std::string dir_;
  Plan plan_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rt
}  // namespace tetune
