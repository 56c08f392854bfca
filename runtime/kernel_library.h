// A kernel library made by `tetune compile` (libmodel.so) or for remote
// measurement: its kernel table (runtime/plan.h KernelEntry) and the Halide
// runtime entry points it exports, plus the buffer descriptions its kernels
// take. Shared by the model runtime (model.h) and the measure runner.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <halide14/HalideRuntime.h>

#include "runtime/plan.h"
#include "base/dtype.h"

namespace tetune {
namespace rt {

class KernelLibrary {
 public:
  /**
   * dlopens path (RTLD_LOCAL) and checks its kernel table's ABI tag (kAbiTag).
   * Installs an error handler that records Halide's messages (last_error())
   * instead of Halide's default print-and-abort, and ScratchCache as its
   * halide_malloc / halide_free (scratch_cache.h). Raises RuntimeError naming
   * the path: file missing, not loadable (dlerror's reason), no kernel table,
   * or another ABI.
   */
  static std::unique_ptr<KernelLibrary> open(const std::string &path);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  /** The kernel named name, or nullptr. */
  const KernelEntry *find(const std::string &name) const;
  /** An exported symbol (e.g. "halide_copy_to_host") as type F, or nullptr when absent. */
  template <typename F>
  F symbol(const char *name) const {
    return reinterpret_cast<F>(raw_symbol(name));
  }
  void *handle() const { return dl_; }
  const std::string &path() const { return path_; }

  /** Halide's messages (joined by "; ") since clear_error(), in this thread. */
  static const std::string &last_error();
  static void clear_error();

 private:
  KernelLibrary() = default;
  void *raw_symbol(const char *name) const;
  void *dl_ = nullptr;
  std::string path_;
  const KernelEntry *table_ = nullptr;
  int count_ = 0;
};

/** Halide's type for a tetune dtype (Bool as uint1). */
halide_type_t halide_type_of(const DType &t);

/**
 * Halide's dimensions of a dense row-major array of `shape` (outermost axis
 * first): dimension 0 is the last axis, min 0, strides in elements. Has
 * max(1, rank) entries so that dim is never null; the buffer's `dimensions`
 * stays the rank.
 */
std::vector<halide_dimension_t> dense_dims(const std::vector<int64_t> &shape);

}  // namespace rt
}  // namespace tetune
