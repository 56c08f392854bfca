// Software prefetch of the next parallel task's weight panels (internal to
// codegen).
//
// A GEMM over a packed weight (codegen/prepack.h) gives each task of its
// parallel loop its own panels, which every row block of the task re-reads.
// The first row block waits for them to come from memory (a model's weights
// exceed the caches; the hardware prefetchers run only a few lines ahead of a
// stream), the later ones hit the L2. BERT-base's MLP GEMM (128 x 3072 x
// 768) ran 2.4-2.6 ms a call with its weights flushed against 1.9 warm. This
// pass makes each task fetch into its core's L2, while it computes, the slab
// that its thread's next task will read: runtime/spin_pool.h gives each
// thread a contiguous range of task indices, so that task is index + 1.
//
// Which slabs: those that depend on the task index, tile the buffer task
// after task (at most twice the distance to the next task's), fit
// max_prefetch_slab_bytes (half a core's L2), and that one iteration of the
// task's outer loop reads at least half of (re-read, not streamed through once).
//
// Where the prefetches go: the chain of loops down to a task's busiest
// innermost loop (the one run most often); the outermost loop of that chain
// that runs at least lines / 4 times per task carries them, up to 4 lines per
// iteration, the first lines first, at the end of its body. So a slab of L
// cache lines costs about L prefetch instructions, outside the innermost loop
// where it can be. (A slab of more than 4 lines per innermost iteration is
// fetched in part.)
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include <Halide.h>

namespace tetune {
namespace codegen {

/**
 * Adds the pass to p; it runs after Halide's lowering (on the flattened
 * statement, before parallel loops become closures). `weights` are the Halide
 * names of the input buffers it may prefetch (the lowering names its
 * prepacked inputs); nothing is added when it is empty.
 */
void add_next_task_prefetch(Halide::Pipeline &p, const std::set<std::string> &weights, int64_t max_slab_bytes);

/** The pass on one lowered statement (tests). */
Halide::Internal::Stmt next_task_prefetch(const Halide::Internal::Stmt &s, const std::set<std::string> &weights,
                                          int64_t max_slab_bytes);

/**
 * The largest slab (bytes) worth fetching a task ahead on a core with an L2 of
 * l2_bytes (0: unknown): half of it, so that the next task's slab fits beside
 * the current one's; 512 KiB when unknown. (Larger slabs crowded out what the
 * current task computes with; the measurements behind both bounds are in
 * bench/RESULTS.md, thirty-second and thirty-third sessions.)
 */
int64_t max_prefetch_slab_bytes(int64_t l2_bytes);

}  // namespace codegen
}  // namespace tetune
