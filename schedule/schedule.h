// Schedules: how a compute DAG is computed, kept apart from what it computes.
//
// A Schedule starts from the output tensors with one stage per compute tensor
// (in producer-before-consumer order), each computed at root with the loop
// order of its axes (spatial axes outermost first, then reduce axes). Every
// primitive appends one Step to the trace and updates the stage state; a
// trace replays onto a freshly built compute to an identical schedule
// (see trace.h). Illegal steps raise ScheduleError naming the step, the stage
// and the axis, and leave the schedule unchanged.
//
// Axis names: a split of "i" gives "i_o" (outer) and "i_i" (inner); a fuse of
// "a" and "b" gives "a_b_f". Stage names are the tensor names (made unique
// with a suffix when two tensors share a name).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "schedule/step.h"
#include "te/tensor.h"

namespace tetune {

/** A loop of a stage as it stands: a leaf axis of the split/fuse tree. */
struct LeafAxis {
  std::string name;
  int64_t extent = 0;
  bool is_reduce = false;
  std::string annotation;  // "", "vectorize", "unroll", "parallel", or a GPU tag such as "blockIdx.x"
  bool has_tail = false;   // produced by a split whose factor does not divide the extent
};

/** Where a stage is computed. */
struct Attach {
  enum Kind { Root, Inline, At } kind = Root;
  std::string stage;  // At: the consumer stage
  std::string axis;   // At: the loop of that stage
};

/** A split of `parent` into `outer`/`inner`, or a fuse of `outer`/`inner` into `parent`. */
struct Relation {
  enum Kind { Split, Fuse } kind;
  std::string parent, outer, inner;
  int64_t factor = 0;  // split: inner extent, or number of outer parts when nparts
  bool nparts = false;
  int64_t inner_extent = 0;  // split: the resulting inner extent (the factor given to Halide)
  TailStrategy tail = TailStrategy::Auto;
};

/**
 * rfactor bookkeeping. On the ".rf" stage (`of` set): it computes partial
 * reductions indexed by `axis` (its outermost spatial axis), reducing over the
 * stage's other reduce axes plus `other`, the complementary part of the split of
 * `orig` (orig = outer * factor + inner, guarded by orig < extent). On the
 * factored stage (`partial` set): its only reduce axis is `axis`, over the
 * partial results of stage `partial`.
 */
struct RFactorInfo {
  std::string partial;  // factored stage: the ".rf" stage it combines
  std::string of;       // ".rf" stage: the stage it was factored out of
  std::string axis;     // the factored axis
  std::string orig;     // the original reduce axis `axis` comes from (== axis when not split)
  std::string other;    // the complementary part of the split ("" when axis was not split)
  bool axis_is_outer = true;
  int64_t factor = 0;   // inner extent of the split (0 when not split)
  int64_t extent = 0;   // extent of orig
};

/**
 * pack_layout bookkeeping of a cache_read stage: root axis `axis` (extent E)
 * of the copy is stored split into `axis`_o (E / factor, outermost) and
 * `axis`_i (factor, innermost); `source_axes` are the copy's axes before,
 * in the source tensor's order.
 */
struct PackInfo {
  std::string axis;
  int64_t factor = 0;
  std::vector<std::string> source_axes;
  bool packed() const { return factor > 0; }
};

struct StageInfo {
  enum Kind { Compute, Copy } kind = Compute;
  std::string name;
  Tensor tensor;        // Compute: the tensor whose body this stage evaluates; Copy: the tensor it stands for
  std::string source;   // Copy: stage or placeholder name whose values it copies
  bool is_output = false;
  Shape shape;
  std::vector<std::string> spatial_axes;  // root spatial axes, outermost first
  std::vector<IterVar> reduce_axes;       // root reduce axes (Compute of a reduction)
  std::vector<LeafAxis> leaves;           // current loops, outermost first
  std::vector<Relation> relations;        // in the order applied
  std::set<std::string> all_axes;         // every axis name ever defined on this stage
  Attach attach;
  std::vector<std::string> reads;               // stages / placeholders read
  std::map<std::string, std::string> redirects; // tensor name -> cache stage that replaces it for this stage
  RFactorInfo rfactor;                          // see RFactorInfo (empty unless rfactor was applied)
  PackInfo pack;                                // see PackInfo (empty unless pack_layout was applied)
  std::vector<std::string> storage_order;       // reorder_storage: root spatial axes, outermost first (empty: as declared)

  bool is_reduction() const { return !reduce_axes.empty(); }
  /** Index of a leaf axis, or -1. */
  int leaf_index(const std::string &axis) const;
};

/** Root axes each axis name of st derives from through its splits and fuses (a fused axis: both parts' roots). */
std::map<std::string, std::vector<std::string>> leaf_root_axes(const StageInfo &st);

class Schedule {
 public:
  /** Raises Error when outputs is empty or holds a placeholder. */
  explicit Schedule(const std::vector<Tensor> &outputs);

  const std::vector<Tensor> &outputs() const { return outputs_; }
  /** Placeholders the DAG reads, in first-reached order (the kernel's inputs). */
  const std::vector<Tensor> &inputs() const { return inputs_; }
  const std::vector<StageInfo> &stages() const { return stages_; }
  /** Raises ScheduleError when no stage has this name. */
  const StageInfo &stage(const std::string &name) const;
  bool has_stage(const std::string &name) const;
  /** Stage name of a tensor of the DAG. */
  std::string stage_of(const Tensor &t) const;
  const std::vector<Step> &trace() const { return trace_; }

  // ---- primitives ---------------------------------------------------------
  /** Splits a leaf axis by an inner factor (> 0). Returns {outer, inner}. */
  std::pair<std::string, std::string> split(const std::string &stage, const std::string &axis, int64_t factor,
                                            TailStrategy tail = TailStrategy::Auto);
  /** Splits a leaf axis into nparts outer iterations. Returns {outer, inner}. */
  std::pair<std::string, std::string> split_nparts(const std::string &stage, const std::string &axis, int64_t nparts,
                                                   TailStrategy tail = TailStrategy::Auto);
  /** Splits x and y and orders them xo, yo, xi, yi. Returns those four names. */
  std::vector<std::string> tile(const std::string &stage, const std::string &x, const std::string &y, int64_t fx,
                                int64_t fy, TailStrategy tail = TailStrategy::Auto);
  /** Fuses two adjacent leaf axes (outer immediately enclosing inner). Returns the fused axis. */
  std::string fuse(const std::string &stage, const std::string &outer, const std::string &inner);
  /** Permutes the listed leaf axes among the positions they occupy (outermost first). */
  void reorder(const std::string &stage, const std::vector<std::string> &order);
  void vectorize(const std::string &stage, const std::string &axis);
  void unroll(const std::string &stage, const std::string &axis);
  void parallel(const std::string &stage, const std::string &axis);
  /** Computes stage inside loop `axis` of target, which must consume it (directly or through inlined stages). */
  void compute_at(const std::string &stage, const std::string &target, const std::string &axis);
  /** Inlines a non-reduction, non-output stage into its consumers. */
  void compute_inline(const std::string &stage);
  void compute_root(const std::string &stage);
  /** A stage copying `tensor` that `readers` read instead. Returns its name ("T.cache"). */
  std::string cache_read(const std::string &tensor, const std::vector<std::string> &readers);
  /**
   * Changes the storage layout of a cache_read stage: root axis `axis` (extent
   * E, a multiple of `factor`, 1 < factor <= E) is stored as two axes,
   * `axis`_o (E / factor) outermost and `axis`_i (factor) innermost, with the
   * other axes between them in their order (factor = E: the axis moved
   * innermost, a transpose). Readers still index the copy as
   * the source tensor; codegen maps x to (x / factor, x % factor). This is
   * the panel packing of GEMM's B (Goto and van de Geijn, "Anatomy of
   * High-Performance Matrix Multiplication", ACM TOMS 34(3), 2008, section
   * 6.3): a register block then reads K rows of `factor` contiguous elements
   * instead of rows of the whole matrix with a large (often power-of-two,
   * cache-set conflicting) stride. Like Ansor's layout rewrite of constant
   * weights and TVM's transform_layout. Must precede other steps on the
   * stage; raises ScheduleError otherwise, or when `stage` is not a
   * cache_read stage, is already packed, copies an rfactor ".rf" stage, or
   * the factor is below 2 or does not divide the extent. Returns {axis_o, axis_i}.
   */
  std::pair<std::string, std::string> pack_layout(const std::string &stage, const std::string &axis, int64_t factor);
  /**
   * Stores a non-output stage with its root spatial axes in `order`
   * (outermost first; a permutation of all of them), as Halide's
   * Func::reorder_storage. Why: an accumulator vectorized along a channel
   * axis that is not innermost in storage loads and stores its lanes with a
   * stride (gathers and scatters every update); stored channel-innermost the
   * same lanes are one dense vector. Raises ScheduleError for an output or
   * inlined stage, or when `order` is not a permutation of the root spatial
   * axes; a later compute_inline of the stage is rejected too.
   */
  void reorder_storage(const std::string &stage, const std::vector<std::string> &order);
  /** Moves the computation of a stage into a new stage "S.local"; S becomes a copy of it. Must precede other steps on S. */
  std::string cache_write(const std::string &stage);
  /**
   * Factors the reduction of `stage` over reduce leaf `axis` (an original reduce
   * axis, or the outer or inner part of one split of one, with no other split or
   * fuse of the stage's reduce axes) into a new stage "S.rf", returned: S.rf
   * computes partial results with `axis` as its outermost spatial axis, reducing
   * over S's other reduce axes and the complementary part of the split, with
   * fresh loops (computed at root). S then reduces only over `axis`, combining
   * the partial results (its other reduce loops are gone; its spatial loops stay).
   * Like Halide's Func::rfactor and TVM's te rfactor; e.g. parallelise S.rf over
   * `axis`. Not allowed on a stage already factored or on a ".rf" stage; a
   * factored stage cannot be cache_written afterwards (cache_write it first).
   */
  std::string rfactor(const std::string &stage, const std::string &axis);
  /** Binds a leaf axis to a GPU index: blockIdx.{x,y,z} or threadIdx.{x,y,z}. */
  void bind(const std::string &stage, const std::string &axis, const std::string &tag);

  // ---- the same, naming stages by their tensors --------------------------------
  // Each primitive also takes a compute Tensor of the DAG where it takes a stage
  // name, and means that tensor's stage (stage_of(t); so s.split(C, "i", 32) is
  // s.split("C", "i", 32)). cache_read also takes an input placeholder, by its
  // name. A tensor with no stage here raises ScheduleError (the schedule unchanged).
  // Stages made by steps ("C.local", "B.cache", "C.rf") have no tensor: name them
  // by the names those steps return (pack_layout applies only to such a stage).
  const StageInfo &stage(const Tensor &t) const { return stage(stage_of(t)); }
  std::pair<std::string, std::string> split(const Tensor &t, const std::string &axis, int64_t factor,
                                            TailStrategy tail = TailStrategy::Auto);
  std::pair<std::string, std::string> split_nparts(const Tensor &t, const std::string &axis, int64_t nparts,
                                                   TailStrategy tail = TailStrategy::Auto);
  std::vector<std::string> tile(const Tensor &t, const std::string &x, const std::string &y, int64_t fx, int64_t fy,
                                TailStrategy tail = TailStrategy::Auto);
  std::string fuse(const Tensor &t, const std::string &outer, const std::string &inner);
  void reorder(const Tensor &t, const std::vector<std::string> &order);
  void vectorize(const Tensor &t, const std::string &axis);
  void unroll(const Tensor &t, const std::string &axis);
  void parallel(const Tensor &t, const std::string &axis);
  void compute_at(const Tensor &t, const Tensor &target, const std::string &axis);
  void compute_inline(const Tensor &t);
  void compute_root(const Tensor &t);
  std::string cache_read(const Tensor &tensor, const std::vector<std::string> &readers);
  std::string cache_read(const Tensor &tensor, const std::vector<Tensor> &readers);
  void reorder_storage(const Tensor &t, const std::vector<std::string> &order);
  std::string cache_write(const Tensor &t);
  std::string rfactor(const Tensor &t, const std::string &axis);
  void bind(const Tensor &t, const std::string &axis, const std::string &tag);

  /** Validates and applies one step (used by the primitives and by replay). */
  void apply(const Step &step);

 private:
  /** The stage named `name`; raises ScheduleError naming step S otherwise. */
  template <typename S>
  StageInfo &mutable_stage(const std::string &name, const S &step);
  // One per step type; each validates, applies, or raises ScheduleError leaving the schedule unchanged.
  void apply_step(const SplitStep &s);
  void apply_step(const FuseStep &s);
  void apply_step(const ReorderStep &s);
  void apply_step(const VectorizeStep &s);
  void apply_step(const UnrollStep &s);
  void apply_step(const ParallelStep &s);
  void apply_step(const BindStep &s);
  void apply_step(const ComputeAtStep &s);
  void apply_step(const ComputeInlineStep &s);
  void apply_step(const ComputeRootStep &s);
  void apply_step(const CacheReadStep &s);
  void apply_step(const CacheWriteStep &s);
  void apply_step(const RfactorStep &s);
  void apply_step(const PackLayoutStep &s);
  void apply_step(const ReorderStorageStep &s);
  bool consumes(const std::string &consumer, const std::string &producer) const;
  bool inside(const std::string &stage, const std::string &target, const std::string &axis) const;
  /** "" when every computed-at stage's loop encloses all its uses, else why not. */
  std::string attach_problem() const;

  std::vector<Tensor> outputs_;
  std::vector<Tensor> inputs_;
  std::vector<StageInfo> stages_;
  std::vector<Step> trace_;
  std::map<const TensorNode *, std::string> tensor_stage_;  // stage that realises each compute tensor
};

}  // namespace tetune
