// A shared library of AOT kernels with a kernel table, loadable by the
// compiler-free runtime (runtime/plan.h: KernelEntry, kKernelTableSymbol,
// kAbiTag): used for exported models (OUT/libmodel.so) and for batches of
// candidates measured on another machine (autotune/remote).
//
// The objects are compile_object(..., no_runtime = true) outputs; one Halide
// runtime object (compile_runtime) is linked in, so the library needs only
// libdl, libpthread and, for a GPU target, the NVIDIA driver.
#pragma once

#include <string>
#include <vector>

namespace tetune {

struct LibraryKernel {
  std::string name;     // exported as NAME_argv(void **args)
  int num_args = 0;     // buffers: inputs then outputs
  std::string object;   // path of its .o
};

/**
 * Writes BUILD_DIR/kernel_table.cc and links it with the kernel objects and
 * runtime_object into out_so (written through a temporary file, so a failed
 * link leaves no partial library) with `cxx` ("" = $CXX or g++), flags
 * `-shared -fPIC -Wl,-Bsymbolic` (the kernels bind to their own Halide
 * runtime even when another one is loaded). Raises CodegenError with the
 * linker output on failure.
 */
void link_kernel_library(const std::vector<LibraryKernel> &kernels, const std::string &runtime_object,
                         const std::string &build_dir, const std::string &out_so, const std::string &cxx = "");

/** Single-quotes s for /bin/sh. */
std::string shell_quote(const std::string &s);

/** Runs cmd through /bin/sh, capturing stdout and stderr into *out; returns the exit status (128 + signal if killed). */
int run_shell(const std::string &cmd, std::string *out);

}  // namespace tetune
