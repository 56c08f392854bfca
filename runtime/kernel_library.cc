#include "runtime/kernel_library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "base/errors.h"
#include "runtime/scratch_cache.h"

namespace tetune {
namespace rt {

namespace {

thread_local std::string t_halide_error;

// Halide's default error handler prints and abort()s; record the message so
// that the caller can raise RuntimeError with it.
void record_halide_error(void *, const char *msg) {
  if (!t_halide_error.empty()) t_halide_error += "; ";
  t_halide_error += msg ? msg : "(no message)";
  while (!t_halide_error.empty() && t_halide_error.back() == '\n') t_halide_error.pop_back();
}

}  // namespace

std::unique_ptr<KernelLibrary> KernelLibrary::open(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw RuntimeError(path + ": file is missing (re-run `tetune compile`)");
  std::unique_ptr<KernelLibrary> lib(new KernelLibrary());
  lib->path_ = path;
  lib->dl_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->dl_) throw RuntimeError(path + ": cannot load: " + dlerror());
  auto *abi = static_cast<const char *>(lib->raw_symbol(kAbiSymbol));
  lib->table_ = static_cast<const KernelEntry *>(lib->raw_symbol(kKernelTableSymbol));
  auto *count = static_cast<const int *>(lib->raw_symbol(kKernelCountSymbol));
  if (!abi || !lib->table_ || !count) throw RuntimeError(path + ": not a tetune kernel library (no kernel table)");
  if (std::strcmp(abi, kAbiTag) != 0) throw RuntimeError(path + ": kernel table ABI '" + abi + "', expected '" + kAbiTag + "'");
  lib->count_ = *count;
  using ErrorHandler = void (*)(void *, const char *);
  if (auto set = lib->symbol<ErrorHandler (*)(ErrorHandler)>("halide_set_error_handler")) set(record_halide_error);
  if (auto set = lib->symbol<halide_malloc_t (*)(halide_malloc_t)>("halide_set_custom_malloc")) set(&ScratchCache::allocate);
  if (auto set = lib->symbol<halide_free_t (*)(halide_free_t)>("halide_set_custom_free")) set(&ScratchCache::release);
  return lib;
}

KernelLibrary::~KernelLibrary() {
  if (dl_) dlclose(dl_);
}

const KernelEntry *KernelLibrary::find(const std::string &name) const {
  for (int i = 0; i < count_; i++)
    if (name == table_[i].name) return &table_[i];
  return nullptr;
}

void *KernelLibrary::raw_symbol(const char *name) const { return dlsym(dl_, name); }

const std::string &KernelLibrary::last_error() { return t_halide_error; }
void KernelLibrary::clear_error() { t_halide_error.clear(); }

halide_type_t halide_type_of(const DType &t) {
  switch (t.code) {
    case DType::Int: return halide_type_t(halide_type_int, t.bits);
    case DType::UInt: return halide_type_t(halide_type_uint, t.bits);
    case DType::Float: return halide_type_t(halide_type_float, t.bits);
    case DType::BFloat: return halide_type_t(halide_type_bfloat, t.bits);
    default: return halide_type_t(halide_type_uint, 1);
  }
}

std::vector<halide_dimension_t> dense_dims(const std::vector<int64_t> &shape) {
  const int nd = static_cast<int>(shape.size());
  std::vector<halide_dimension_t> d(std::max(nd, 1));
  int64_t stride = 1;
  for (int i = 0; i < nd; i++) {
    int64_t ext = shape[nd - 1 - i];
    d[i] = halide_dimension_t(0, static_cast<int32_t>(ext), static_cast<int32_t>(stride));
    stride *= ext;
  }
  return d;
}

}  // namespace rt
}  // namespace tetune
