#include "runtime/device_memory.h"

#include <algorithm>
#include <climits>

#include "base/errors.h"

namespace tetune {
namespace rt {

namespace {
template <typename F>
F need(const KernelLibrary &lib, const char *name, const std::string &where) {
  F f = lib.symbol<F>(name);
  if (!f) throw RuntimeError(where + ": exported for CUDA but does not export " + name + " (not a tetune CUDA export?)");
  return f;
}

void check(int rc, const std::string &what, const std::string &op) {
  if (rc != 0) {
    std::string msg = KernelLibrary::last_error();
    throw RuntimeError(what + ": " + op + " failed with Halide error " + std::to_string(rc) + (msg.empty() ? "" : ": " + msg));
  }
}
}  // namespace

DeviceMemory::DeviceMemory(const KernelLibrary &lib, const std::string &where) : where_(where) {
  auto iface = need<const halide_device_interface_t *(*)()>(lib, "halide_cuda_device_interface", where);
  interface_ = iface();
  malloc_ = need<decltype(malloc_)>(lib, "halide_device_malloc", where);
  free_ = need<decltype(free_)>(lib, "halide_device_free", where);
  wrap_ = need<decltype(wrap_)>(lib, "halide_cuda_wrap_device_ptr", where);
  detach_ = need<decltype(detach_)>(lib, "halide_cuda_detach_device_ptr", where);
  to_device_ = need<decltype(to_device_)>(lib, "halide_copy_to_device", where);
  to_host_ = need<decltype(to_host_)>(lib, "halide_copy_to_host", where);
  sync_ = need<decltype(sync_)>(lib, "halide_device_sync", where);
}

DeviceMemory::~DeviceMemory() {
  for (halide_buffer_t *b : wrapped_) detach_(nullptr, b);
  for (Allocation *a : allocations_) {
    free_(nullptr, &a->buf);
    delete a;
  }
}

uint64_t DeviceMemory::allocate(int64_t bytes, const void *host, const std::string &what) {
  if (bytes > INT32_MAX) throw RuntimeError(what + ": " + std::to_string(bytes) + " bytes is over one device buffer's 2^31-1");
  auto *a = new Allocation();
  allocations_.push_back(a);
  a->dim = halide_dimension_t(0, static_cast<int32_t>(std::max<int64_t>(bytes, 1)), 1);
  a->buf.type = halide_type_t(halide_type_uint, 8);
  a->buf.dimensions = 1;
  a->buf.dim = &a->dim;
  a->buf.host = const_cast<uint8_t *>(static_cast<const uint8_t *>(host));
  check(malloc_(nullptr, &a->buf, interface_), what, "device allocation of " + std::to_string(bytes) + " bytes");
  if (host) {
    a->buf.flags = halide_buffer_flag_host_dirty;
    check(to_device_(nullptr, &a->buf, interface_), what, "copy to the device");
    check(sync_(nullptr, &a->buf), what, "device sync");
  }
  a->buf.host = nullptr;  // the host memory is the caller's
  a->buf.flags = 0;
  return a->buf.device;
}

void DeviceMemory::wrap(halide_buffer_t *buf, uint64_t device, const std::string &what) {
  buf->device = 0;
  buf->device_interface = nullptr;
  check(wrap_(nullptr, buf, device), what, "wrapping device memory");
  wrapped_.push_back(buf);
}

void DeviceMemory::upload(halide_buffer_t *buf, const std::string &what) {
  buf->flags = halide_buffer_flag_host_dirty;
  check(to_device_(nullptr, buf, interface_), what, "copy to the device");
}

void DeviceMemory::download(halide_buffer_t *buf, const std::string &what) {
  buf->flags = halide_buffer_flag_device_dirty;
  check(to_host_(nullptr, buf), what, "copy to the host");
}

void DeviceMemory::sync(halide_buffer_t *buf, const std::string &what) { check(sync_(nullptr, buf), what, "device sync"); }

}  // namespace rt
}  // namespace tetune
