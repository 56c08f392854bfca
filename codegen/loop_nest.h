// The lowered loop nest of a kernel, read from Halide's final statement.
//
// Used for cost-model features (in the spirit of Ansor's per-store features,
// Zheng et al., OSDI 2020, section 5.2) and for inspection.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tetune {

struct Loop {
  std::string name;      // Halide's loop name, e.g. "C.s1.i_o"
  std::string kind;      // "serial", "parallel", "vectorized", "unrolled", "gpu_block", "gpu_thread"
  int64_t extent = -1;   // -1 when not a compile-time constant
  int parent = -1;       // index of the enclosing loop, -1 at the top
};

/** One load or store in the lowered code. */
struct BufferAccess {
  std::string buffer;
  bool is_store = false;
  int lanes = 1;            // vector width of the access
  bool dense = false;       // a dense (stride 1) vector access
  int loop = -1;            // innermost enclosing loop index, -1 at the top
  int bytes_per_lane = 4;
};

/** An allocation of an intermediate buffer. */
struct Allocation {
  std::string buffer;
  int64_t bytes = -1;  // -1 when not a compile-time constant
  int loop = -1;       // innermost enclosing loop
};

struct LoopNest {
  std::vector<Loop> loops;
  std::vector<BufferAccess> accesses;
  std::vector<Allocation> allocations;
  int64_t float_ops = 0;  // arithmetic nodes on floats, static count (not scaled by trip counts)
  int64_t int_ops = 0;
  /** Product of extents from the top down to loop i (inclusive); -1 if any is unknown. */
  int64_t trip_count(int loop) const;
  /** Indented text: one line per loop and access. */
  std::string str() const;
};

}  // namespace tetune
