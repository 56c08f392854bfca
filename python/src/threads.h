// Kernel thread counts of the bindings that tune or compile: the shared
// default and the process-wide count that measuring children inherit.
#pragma once

#include <optional>
#include <string>

namespace tetune::python {

/**
 * A `threads` argument: None = the one default of every command (this
 * machine's cores, or $HL_NUM_THREADS: rt::SpinPool::default_threads()).
 * ValueError outside 1..SpinPool::kMaxThreads.
 */
int threads_or_default(const std::optional<int> &threads);

/**
 * Sets this process's kernel thread count to `threads` before tuning:
 * measuring children fork from it and set the task's count, which
 * set_num_threads refuses once a kernel ran with another one. Raises
 * UsageError naming `what` (e.g. "tune()") and the remedy in that case, so
 * the mismatch is one clear error instead of every candidate failing.
 */
void claim_threads(int threads, const std::string &what);

}  // namespace tetune::python
