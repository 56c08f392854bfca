// CUDA-event timing (runtime/cuda_events.h) without a GPU: every way of
// failing before a kernel is timed gives a RuntimeError that says what is
// missing. The CUDA toolkit's stub driver (exports every driver entry point,
// each returning CUDA_ERROR_STUB_LIBRARY = 34) checks the symbol names and
// the reporting of a failed driver call.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "runtime/cuda_events.h"
#include "base/errors.h"

namespace tetune {
namespace {

const char *kStubDriver = "/usr/local/cuda/lib64/stubs/libcuda.so";

// A context handle that only the stub driver may see (it never dereferences handles).
rt::CudaStream fake_context() {
  static int dummy;
  return rt::CudaStream{&dummy, nullptr};
}

std::string error_of(const rt::CudaStream &where, const std::string &driver) {
  try {
    rt::CudaEventTimer timer(where, driver);
  } catch (const RuntimeError &e) {
    return e.what();
  }
  return "";
}

TEST(CudaEvents, ANullContextIsRefusedBeforeTheDriverIsLoaded) {
  std::string e = error_of(rt::CudaStream{}, "libtetune_no_such_driver.so.1");
  EXPECT_NE(e.find("CUDA event timing: no CUDA context"), std::string::npos) << e;
}

TEST(CudaEvents, AnUnloadableDriverIsNamed) {
  std::string e = error_of(fake_context(), "libtetune_no_such_driver.so.1");
  EXPECT_NE(e.find("cannot load the CUDA driver libtetune_no_such_driver.so.1"), std::string::npos) << e;
}

TEST(CudaEvents, TheDefaultDriverIsLibcudaSo1) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib) GTEST_SKIP() << "libcuda.so.1 is installed here; gpu_remote_measure_test covers timing with it";
  std::string e = error_of(fake_context(), "libcuda.so.1");
  EXPECT_NE(e.find("cannot load the CUDA driver libcuda.so.1"), std::string::npos) << e;
}

TEST(CudaEvents, ALibraryWithoutTheDriverApiNamesTheMissingSymbol) {
  std::string e = error_of(fake_context(), "libc.so.6");
  EXPECT_NE(e.find("libc.so.6 has no cuCtxPushCurrent_v2"), std::string::npos) << e;
}

TEST(CudaEvents, AFailedDriverCallCarriesItsCudaError) {
  if (access(kStubDriver, R_OK) != 0) GTEST_SKIP() << "no CUDA stub driver at " << kStubDriver;
  // Every symbol resolves (the names exist in a CUDA 13 driver), then the first call fails.
  std::string e = error_of(fake_context(), kStubDriver);
  EXPECT_NE(e.find("cuCtxPushCurrent_v2 failed with CUDA error 34"), std::string::npos) << e;
}

TEST(CudaEvents, ALibraryWithoutAHalideCudaRuntimeIsRefused) {
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(libc, nullptr);
  try {
    rt::halide_cuda_stream(libc);
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("exports no halide_cuda_acquire_context"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
