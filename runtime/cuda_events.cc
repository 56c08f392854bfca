#include "runtime/cuda_events.h"

#include <dlfcn.h>

#include "base/errors.h"

namespace tetune {
namespace rt {

namespace {

// Driver API signatures as documented in cuda.h (CUresult is an int-sized
// enum, handles are pointers); declared here so that no CUDA header is needed.
using CUresult = int;
using CtxPushCurrentFn = CUresult (*)(void *ctx);
using CtxPopCurrentFn = CUresult (*)(void **ctx);
using EventCreateFn = CUresult (*)(void **event, unsigned int flags);
using EventRecordFn = CUresult (*)(void *event, void *stream);
using EventSynchronizeFn = CUresult (*)(void *event);
using EventElapsedTimeFn = CUresult (*)(float *ms, void *start, void *end);
using EventDestroyFn = CUresult (*)(void *event);
using GetErrorNameFn = CUresult (*)(CUresult error, const char **name);

constexpr unsigned int kEventDefault = 0;  // CU_EVENT_DEFAULT: timing enabled

// Halide 14 runtime entry points (HalideRuntimeCuda.h types them with void * for CUcontext / CUstream).
using AcquireContextFn = int (*)(void *user_context, void **ctx, bool create);
using ReleaseContextFn = int (*)(void *user_context);
using GetStreamFn = int (*)(void *user_context, void *ctx, void **stream);

[[noreturn]] void fail(const std::string &msg) { throw RuntimeError("CUDA event timing: " + msg); }

}  // namespace

CudaStream halide_cuda_stream(void *lib) {
  auto acquire = reinterpret_cast<AcquireContextFn>(dlsym(lib, "halide_cuda_acquire_context"));
  auto release = reinterpret_cast<ReleaseContextFn>(dlsym(lib, "halide_cuda_release_context"));
  if (!acquire || !release)
    fail("the kernel library exports no halide_cuda_acquire_context / halide_cuda_release_context (not linked with a CUDA Halide runtime?)");
  CudaStream where;
  int rc = acquire(nullptr, &where.context, /*create=*/false);
  if (rc != 0) fail("halide_cuda_acquire_context failed with error " + std::to_string(rc));
  if (where.context) {
    if (auto get_stream = reinterpret_cast<GetStreamFn>(dlsym(lib, "halide_cuda_get_stream")))
      rc = get_stream(nullptr, where.context, &where.stream);
  }
  release(nullptr);
  if (!where.context) fail("the Halide CUDA runtime has no context yet (no kernel of the library has run)");
  if (rc != 0) fail("halide_cuda_get_stream failed with error " + std::to_string(rc));
  return where;
}

struct CudaEventTimer::Impl {
  std::string driver;
  CtxPushCurrentFn push = nullptr;
  CtxPopCurrentFn pop = nullptr;
  EventCreateFn create = nullptr;
  EventRecordFn record = nullptr;
  EventSynchronizeFn synchronize = nullptr;
  EventElapsedTimeFn elapsed = nullptr;
  EventDestroyFn destroy = nullptr;
  GetErrorNameFn error_name = nullptr;
  void *stream = nullptr;
  void *start = nullptr, *stop = nullptr;
  bool pushed = false;

  // "cuEventRecord failed with CUDA error 700 (CUDA_ERROR_ILLEGAL_ADDRESS)"
  void check(CUresult rc, const char *call) const {
    if (rc == 0) return;
    std::string msg = std::string(call) + " failed with CUDA error " + std::to_string(rc);
    const char *name = nullptr;
    if (error_name && error_name(rc, &name) == 0 && name) msg += std::string(" (") + name + ")";
    fail(msg);
  }

  void release() {
    // Best effort: a failure here cannot be reported better than the error being unwound.
    if (start && destroy) destroy(start);
    if (stop && destroy) destroy(stop);
    start = stop = nullptr;
    if (pushed && pop) {
      void *old = nullptr;
      pop(&old);
    }
    pushed = false;
  }
};

CudaEventTimer::CudaEventTimer(const CudaStream &where, const std::string &driver) : impl_(new Impl) {
  Impl &im = *impl_;
  im.driver = driver;
  im.stream = where.stream;
  if (!where.context) fail("no CUDA context to record events in");
  // The library is never dlclose()d: the Halide runtime holds the same driver and unloading it under a live context is unsafe.
  void *lib = dlopen(driver.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    fail("cannot load the CUDA driver " + driver + (e ? std::string(": ") + e : std::string()));
  }
  auto sym = [&](const char *name) {
    void *p = dlsym(lib, name);
    if (!p) fail(driver + " has no " + name);
    return p;
  };
  im.error_name = reinterpret_cast<GetErrorNameFn>(dlsym(lib, "cuGetErrorName"));  // optional: only for messages
  im.push = reinterpret_cast<CtxPushCurrentFn>(sym("cuCtxPushCurrent_v2"));
  im.pop = reinterpret_cast<CtxPopCurrentFn>(sym("cuCtxPopCurrent_v2"));
  im.create = reinterpret_cast<EventCreateFn>(sym("cuEventCreate"));
  im.record = reinterpret_cast<EventRecordFn>(sym("cuEventRecord"));
  im.synchronize = reinterpret_cast<EventSynchronizeFn>(sym("cuEventSynchronize"));
  im.destroy = reinterpret_cast<EventDestroyFn>(sym("cuEventDestroy_v2"));
  void *elapsed = dlsym(lib, "cuEventElapsedTime_v2");
  im.elapsed = reinterpret_cast<EventElapsedTimeFn>(elapsed ? elapsed : sym("cuEventElapsedTime"));
  try {
    im.check(im.push(where.context), "cuCtxPushCurrent_v2");
    im.pushed = true;
    im.check(im.create(&im.start, kEventDefault), "cuEventCreate");
    im.check(im.create(&im.stop, kEventDefault), "cuEventCreate");
  } catch (...) {
    im.release();
    throw;
  }
}

CudaEventTimer::~CudaEventTimer() { impl_->release(); }

void CudaEventTimer::start() { impl_->check(impl_->record(impl_->start, impl_->stream), "cuEventRecord"); }

double CudaEventTimer::stop_ms() {
  Impl &im = *impl_;
  im.check(im.record(im.stop, im.stream), "cuEventRecord");
  im.check(im.synchronize(im.stop), "cuEventSynchronize");
  float ms = 0;
  im.check(im.elapsed(&ms, im.start, im.stop), "cuEventElapsedTime");
  return ms;
}

std::string cuda_device_name() {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return "";
  auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(cuda, "cuInit"));
  auto get = reinterpret_cast<int (*)(int *, int)>(dlsym(cuda, "cuDeviceGet"));
  auto name = reinterpret_cast<int (*)(char *, int, int)>(dlsym(cuda, "cuDeviceGetName"));
  char buf[256] = {0};
  int dev = 0;
  std::string r;
  if (init && get && name && init(0) == 0 && get(&dev, 0) == 0 && name(buf, sizeof buf, dev) == 0) r = buf;
  dlclose(cuda);
  return r;
}

}  // namespace rt
}  // namespace tetune
