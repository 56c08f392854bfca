// Schedule steps: one struct per primitive, a Step is any one of them.
//
// As TVM's auto_scheduler keeps one step class per transform
// (auto_scheduler/transform_step.h), each primitive here is its own struct
// holding exactly its arguments, with its record name (kKind), equality and
// a str() for messages. Schedule::apply validates and applies a Step
// (schedule.h); trace.h writes and reads a trace of them as JSON. Code that
// inspects a trace uses std::get_if or std::visit.
//
// Stage fields hold stage names as the schedule gives them (see schedule.h);
// axis fields hold leaf axis names of that stage.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace tetune {

/**
 * What a split does when the factor does not divide the extent (Halide's
 * TailStrategy). auto: shift inwards on an output's pure loops, guard
 * elsewhere. shift_inwards: not on reductions. round_up: only with a factor
 * that divides the extent, and only exact at root (guarded when computed at).
 */
enum class TailStrategy { Auto, GuardWithIf, ShiftInwards, RoundUp };
const char *to_string(TailStrategy t);
/** Raises ParseError for a name that is not one of to_string's. */
TailStrategy parse_tail_strategy(const std::string &s);

/** Splits leaf `axis` into axis_o and axis_i: by an inner `factor`, or into `factor` outer parts when `nparts`. */
struct SplitStep {
  static constexpr const char *kKind = "split";
  std::string stage, axis;
  int64_t factor = 0;
  bool nparts = false;
  TailStrategy tail = TailStrategy::Auto;
  /** "split(C, i, 32, 0)", with ", guard_with_if" etc. when the tail is not auto. */
  std::string str() const;
  bool operator==(const SplitStep &o) const {
    return std::tie(stage, axis, factor, nparts, tail) == std::tie(o.stage, o.axis, o.factor, o.nparts, o.tail);
  }
};

/** Fuses leaf `outer` with the leaf `inner` it immediately encloses into outer_inner_f. */
struct FuseStep {
  static constexpr const char *kKind = "fuse";
  std::string stage, outer, inner;
  std::string str() const;
  bool operator==(const FuseStep &o) const { return std::tie(stage, outer, inner) == std::tie(o.stage, o.outer, o.inner); }
};

/** Permutes the listed leaf axes among the positions they occupy (outermost first). */
struct ReorderStep {
  static constexpr const char *kKind = "reorder";
  std::string stage;
  std::vector<std::string> order;
  std::string str() const;
  bool operator==(const ReorderStep &o) const { return std::tie(stage, order) == std::tie(o.stage, o.order); }
};

/** Vectorizes leaf `axis` (its extent is the vector width). */
struct VectorizeStep {
  static constexpr const char *kKind = "vectorize";
  std::string stage, axis;
  std::string str() const;
  bool operator==(const VectorizeStep &o) const { return std::tie(stage, axis) == std::tie(o.stage, o.axis); }
};

/** Unrolls leaf `axis`. */
struct UnrollStep {
  static constexpr const char *kKind = "unroll";
  std::string stage, axis;
  std::string str() const;
  bool operator==(const UnrollStep &o) const { return std::tie(stage, axis) == std::tie(o.stage, o.axis); }
};

/** Runs leaf `axis` in parallel over threads. */
struct ParallelStep {
  static constexpr const char *kKind = "parallel";
  std::string stage, axis;
  std::string str() const;
  bool operator==(const ParallelStep &o) const { return std::tie(stage, axis) == std::tie(o.stage, o.axis); }
};

/** Computes `stage` inside loop `target_axis` of stage `target_stage`. */
struct ComputeAtStep {
  static constexpr const char *kKind = "compute_at";
  std::string stage, target_stage, target_axis;
  /** "compute_at(S, target_axis, target_stage)", the argument order of the trace record. */
  std::string str() const;
  bool operator==(const ComputeAtStep &o) const {
    return std::tie(stage, target_stage, target_axis) == std::tie(o.stage, o.target_stage, o.target_axis);
  }
};

/** Inlines `stage` into its consumers. */
struct ComputeInlineStep {
  static constexpr const char *kKind = "compute_inline";
  std::string stage;
  std::string str() const;
  bool operator==(const ComputeInlineStep &o) const { return stage == o.stage; }
};

/** Computes `stage` at root (undoes compute_at / compute_inline). */
struct ComputeRootStep {
  static constexpr const char *kKind = "compute_root";
  std::string stage;
  std::string str() const;
  bool operator==(const ComputeRootStep &o) const { return stage == o.stage; }
};

/** Adds a stage copying `tensor` (a placeholder or stage name) that the `readers` stages read instead. */
struct CacheReadStep {
  static constexpr const char *kKind = "cache_read";
  std::string tensor;
  std::vector<std::string> readers;
  std::string str() const;
  bool operator==(const CacheReadStep &o) const { return std::tie(tensor, readers) == std::tie(o.tensor, o.readers); }
};

/** Moves the computation of `stage` into a new stage "stage.local"; `stage` becomes a copy of it. */
struct CacheWriteStep {
  static constexpr const char *kKind = "cache_write";
  std::string stage;
  std::string str() const;
  bool operator==(const CacheWriteStep &o) const { return stage == o.stage; }
};

/** Factors the reduction of `stage` over reduce leaf `axis` into a new stage "stage.rf". */
struct RfactorStep {
  static constexpr const char *kKind = "rfactor";
  std::string stage, axis;
  std::string str() const;
  bool operator==(const RfactorStep &o) const { return std::tie(stage, axis) == std::tie(o.stage, o.axis); }
};

/** Binds leaf `axis` to a GPU index `thread_tag`: blockIdx.{x,y,z} or threadIdx.{x,y,z}. */
struct BindStep {
  static constexpr const char *kKind = "bind";
  std::string stage, axis, thread_tag;
  std::string str() const;
  bool operator==(const BindStep &o) const {
    return std::tie(stage, axis, thread_tag) == std::tie(o.stage, o.axis, o.thread_tag);
  }
};

/** Stores root `axis` of cache_read stage `stage` split into axis_o (outermost) and axis_i (`factor`, innermost). */
struct PackLayoutStep {
  static constexpr const char *kKind = "pack_layout";
  std::string stage, axis;
  int64_t factor = 0;
  std::string str() const;
  bool operator==(const PackLayoutStep &o) const {
    return std::tie(stage, axis, factor) == std::tie(o.stage, o.axis, o.factor);
  }
};

/** Stores `stage` with its root spatial axes in `order` (outermost first). */
struct ReorderStorageStep {
  static constexpr const char *kKind = "reorder_storage";
  std::string stage;
  std::vector<std::string> order;
  std::string str() const;
  bool operator==(const ReorderStorageStep &o) const { return std::tie(stage, order) == std::tie(o.stage, o.order); }
};

/** One schedule primitive as recorded in a trace. */
using Step = std::variant<SplitStep, FuseStep, ReorderStep, VectorizeStep, UnrollStep, ParallelStep, ComputeAtStep,
                          ComputeInlineStep, ComputeRootStep, CacheReadStep, CacheWriteStep, RfactorStep, BindStep,
                          PackLayoutStep, ReorderStorageStep>;

/** The step's str(): "split(C, i, 32, 0)", for messages. */
std::string to_string(const Step &s);
/** The step's record name ("split", "compute_at", ...: its kKind). */
const char *step_kind(const Step &s);
/** The stage the step applies to; for cache_read, the tensor it copies. */
const std::string &step_stage(const Step &s);

}  // namespace tetune
