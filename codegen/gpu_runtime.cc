#include "codegen/gpu_runtime.h"

#include <dlfcn.h>

#include <mutex>

namespace tetune {

namespace {
struct Probe {
  bool ok = false;
  std::string why;
};

Probe probe() {
  Probe p;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    p.why = std::string("no CUDA driver: cannot dlopen libcuda.so.1") + (e ? std::string(" (") + e + ")" : "");
    return p;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  if (!init || !count) {
    p.why = "libcuda.so.1 lacks cuInit / cuDeviceGetCount";
    return p;
  }
  int rc = init(0);
  if (rc != 0) {
    p.why = "cuInit failed with CUDA error " + std::to_string(rc) + " (no usable GPU)";
    return p;
  }
  int n = 0;
  rc = count(&n);
  if (rc != 0 || n <= 0) {
    p.why = "cuDeviceGetCount reports no CUDA device (error " + std::to_string(rc) + ")";
    return p;
  }
  p.ok = true;  // the library stays loaded: the Halide CUDA runtime uses it
  return p;
}
}  // namespace

bool cuda_device_available(std::string *why) {
  static std::once_flag once;
  static Probe result;
  std::call_once(once, [] { result = probe(); });
  if (why) *why = result.why;
  return result.ok;
}

}  // namespace tetune
