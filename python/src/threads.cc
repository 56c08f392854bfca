#include "python/src/threads.h"

#include <pybind11/pybind11.h>

#include "base/errors.h"
#include "codegen/kernel.h"
#include "runtime/spin_pool.h"

namespace tetune::python {

int threads_or_default(const std::optional<int> &threads) {
  if (!threads) return rt::SpinPool::default_threads();
  if (*threads < 1 || *threads > rt::SpinPool::kMaxThreads)
    throw pybind11::value_error("threads must be in 1.." + std::to_string(rt::SpinPool::kMaxThreads) + ", got " +
                                std::to_string(*threads));
  return *threads;
}

void claim_threads(int threads, const std::string &what) {
  try {
    set_num_threads(threads);
  } catch (const RuntimeError &e) {
    throw UsageError(what + " with threads=" + std::to_string(threads) +
                     ": JIT kernels already ran in this process with another thread count (" + e.what() +
                     "), and the measuring child processes inherit it. Call tetune.set_num_threads(" +
                     std::to_string(threads) + ") before the first kernel runs, or tune in a fresh process");
  }
}

}  // namespace tetune::python
