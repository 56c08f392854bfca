// Independent jobs run in forked children, a few at a time: process-level
// parallelism for single-threaded work whose results go to files, such as
// the AOT compiles of an export's kernels (Halide lowering and LLVM code
// generation use one core each; a child per job keeps them apart, as the
// tuner's Measurer keeps its builds, see autotune/measure/measure.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tetune {
namespace rt {

/**
 * Runs each job in a forked child of its own (Child::spawn), starting them in
 * job order with at most `parallel` alive at once, and waits for all of them.
 * Returns one string per job: "" when the job returned, else why it did not:
 * the what() of the exception it threw, or how its child ended ("died of
 * signal 11 (Segmentation fault)"). There is no deadline: for work that ends
 * on its own. A job shares nothing with the parent after fork(), so what it
 * makes must go to files. Raises Error for parallel < 1, MeasureError when
 * pipe() or fork() fails (the children already started are killed).
 */
std::vector<std::string> run_jobs_in_children(const std::vector<std::function<void()>> &jobs, int parallel);

}  // namespace rt
}  // namespace tetune
