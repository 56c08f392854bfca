// GPU memory of a CUDA export, through the Halide CUDA runtime linked into its
// libmodel.so: device allocations that stay resident between runs (weights,
// planned buffers, graph inputs), and halide_buffer_t descriptors wrapping
// them, so that consecutive kernels pass data on the device and only the graph
// inputs and outputs cross the bus.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <halide14/HalideRuntime.h>

#include "runtime/kernel_library.h"

namespace tetune {
namespace rt {

class DeviceMemory {
 public:
  /**
   * Binds to the Halide CUDA entry points of `lib` (halide_cuda_device_interface,
   * halide_device_malloc / _free, halide_cuda_wrap_device_ptr / _detach_device_ptr,
   * halide_copy_to_device / _host, halide_device_sync). RuntimeError naming
   * `where` (the library's path) when one is missing.
   */
  DeviceMemory(const KernelLibrary &lib, const std::string &where);
  /** Detaches every wrapped descriptor, then frees every allocation (before the library unloads). */
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  /**
   * A device allocation of `bytes` (at least 1) holding a copy of
   * host[0, bytes), or uninitialised when `host` is null (planned buffers and
   * inputs: written before they are read). Returns its CUdeviceptr.
   * RuntimeError naming `what` when the allocation or the copy fails.
   */
  uint64_t allocate(int64_t bytes, const void *host, const std::string &what);

  /**
   * Makes `buf` (a descriptor with its type, dims and host set) refer to the
   * device memory at `device` (an address inside an allocation of this
   * object, e.g. allocate() + offset). Detached again by the destructor.
   */
  void wrap(halide_buffer_t *buf, uint64_t device, const std::string &what);

  /** Copies buf's host memory to its device memory (buf must be wrapped). */
  void upload(halide_buffer_t *buf, const std::string &what);
  /** Copies buf's device memory to its host memory and waits for it (buf must be wrapped). */
  void download(halide_buffer_t *buf, const std::string &what);
  /** Waits until the kernels launched so far have finished. */
  void sync(halide_buffer_t *buf, const std::string &what);

 private:
  const halide_device_interface_t *interface_ = nullptr;
  int (*malloc_)(void *, halide_buffer_t *, const halide_device_interface_t *) = nullptr;
  int (*free_)(void *, halide_buffer_t *) = nullptr;
  int (*wrap_)(void *, halide_buffer_t *, uint64_t) = nullptr;
  int (*detach_)(void *, halide_buffer_t *) = nullptr;
  int (*to_device_)(void *, halide_buffer_t *, const halide_device_interface_t *) = nullptr;
  int (*to_host_)(void *, halide_buffer_t *) = nullptr;
  int (*sync_)(void *, halide_buffer_t *) = nullptr;
  std::string where_;
  struct Allocation {
    halide_buffer_t buf;
    halide_dimension_t dim;
  };
  std::vector<Allocation *> allocations_;   // owned; stable addresses (Halide keeps the descriptor pointer)
  std::vector<halide_buffer_t *> wrapped_;  // not owned
};

}  // namespace rt
}  // namespace tetune
