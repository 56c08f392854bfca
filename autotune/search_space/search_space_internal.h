// Internals of the search space: the DAG analysis, sketch plans, the sketch
// rules (one per file, rule_*.cc) and the instantiation of a candidate into
// schedule steps.
//
// A sketch assigns one StagePlan to every stage of the original compute
// (Schedule(task.outputs)). The plans are produced by rules walking the stages
// from outputs to inputs (Ansor, OSDI 2020, section 4.1). A candidate fills a
// sketch's parameters (TileSpec / ChoiceSpec); instantiation walks the stages
// from outputs to inputs again and applies schedule primitives on a live
// Schedule, whose trace is the candidate's steps.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "autotune/search_space/search_space.h"
#include "schedules/default_schedule.h"
#include "schedule/schedule.h"

namespace tetune {
namespace autotune {
namespace ss {

// ---- analysis of the original compute DAG ------------------------------------

struct Graph {
  std::vector<StageInfo> stages;                                 // Schedule(outputs).stages(), producers first
  std::map<std::string, int> index;                              // stage name -> position in stages
  std::map<std::string, std::vector<std::string>> consumers;     // stage -> stages reading it (stage order)
  const StageInfo &stage(const std::string &name) const { return stages.at(index.at(name)); }
  int threads = 1;  // the task's worker threads (bounds the tasks of a parallel loop)
};
Graph analyze(const std::vector<Tensor> &outputs);

/** Non-output, non-reduction, no select, no expensive math, plain indices: Ansor's "strictly inlineable". */
bool is_strictly_inlineable(const StageInfo &st);
/**
 * An elementwise stage that reads tensors only inside a select's branches
 * (a pad): lowering clamps those indices (codegen/lower.cc), so computing it
 * past the region its consumer needs never reads out of bounds.
 */
bool reads_only_guarded(const StageInfo &st);
/** A reduction some of whose inputs are read without some spatial axis (data reuse across that axis). */
bool has_data_reuse(const StageInfo &st);
/** Every access of `producer` in consumer's body uses exactly consumer's axes, in order, with equal shapes. */
bool is_identity_access(const StageInfo &consumer, const StageInfo &producer);
/**
 * The input of a tiled reduction worth packing with cache_read (B of
 * C[i,j] += A[i,k] * B[k,j]): a placeholder read once, with plain variable
 * indices, that does not depend on the outermost tiled spatial axis but on
 * some other spatial axis. "" when none.
 */
std::string packable_input(const StageInfo &st);
/**
 * A reduction over blocked input channels into blocked output channels: it
 * reads a weight [outer blocks.., b_in, b_out] (a placeholder of rank >= 4
 * read with plain variable indices) whose last index is st's last spatial
 * axis and whose second-to-last is a reduce axis of at most kMaxVector. The
 * blocked conv (conv2d_nchwc) and the Winograd GEMM; not a GEMM or an NCHW conv.
 */
bool reduces_blocked_channels(const StageInfo &st);
/**
 * The input-channel block b_in of such a stage (the extent of that reduce
 * axis: 16, or 1 for an NCHW input read as NCHW1c); 0 when st is none.
 */
int64_t blocked_input_lanes(const StageInfo &st);
/** The position among st.reduce_axes of that input-channel block's axis (rci of conv2d_nchwc); -1 when st is none. */
int blocked_lanes_reduce_axis(const StageInfo &st);
/**
 * Of a stage that reduces_blocked_channels: the position among its spatial
 * axes of the outer output-channel axis: the one that indexes the weight
 * beside the lanes and no other input (k of y[n, k, h, w, kb]; not the batch
 * axis e of a Winograd GEMM); -1 when st is no such stage.
 */
int blocked_output_channel_axis(const StageInfo &st);
/** Bytes st reads per call: of inputs indexed by its spatial axis row_axis (a conv's data), and of the others (its weight). */
struct RowSplitBytes {
  int64_t rows = 0, shared = 0;
};
RowSplitBytes row_split_bytes(const StageInfo &st, int row_axis);
/**
 * The taps of st's kernel window: the product of the extents of the reduce
 * axes that index an input together with an output axis (ry, rx of x[.., h + ry,
 * w + rx]); 1 for a 1x1 conv, a GEMM, a channel reduction.
 */
int64_t window_taps(const StageInfo &st);
/** The names of those taps' reduce axes (ry, rx; not a channel reduction). */
std::set<std::string> window_tap_axes(const StageInfo &st);
/** The input a channel-vectorized tiling packs (see channel_vector_input). */
struct ChannelVector {
  std::string input;  // placeholder name ("" when none)
  int input_dim = -1; // its index position that is the channel axis
  int axis = -1;      // position of the channel axis among st's spatial axes
  bool found() const { return !input.empty(); }
};
/**
 * The weight of a conv (W[k, c, ry, rx] of y[n, k, h, w]): a placeholder read
 * once with plain variable indices that uses exactly one spatial axis (its
 * output channels), not the last one, which no other input uses (not a
 * depthwise conv: there every output channel reads its own input channel);
 * only for stages of 3 or more spatial axes (images). Blocking that axis in
 * registers reuses each load of the other input once per output channel.
 */
ChannelVector weight_input(const StageInfo &st);
/**
 * Whether every read of `st` that uses its last spatial axis (the columns)
 * indexes its last dimension with that axis alone: vectors of columns are
 * contiguous loads (B[k, j] of a matmul; not W[j, k] of a Gemm with transB).
 */
bool columns_contiguous(const StageInfo &st);
/**
 * Whether a read of `st` indexes with a quotient or remainder of its last
 * spatial axis (ops::blocked_channel_gather's lanes, each from its own
 * channel; a nearest Resize's w / 4): a vector of columns there is a
 * gather, which LLVM 14 lowers lane by lane, extracting each index.
 */
bool columns_gathered(const StageInfo &st);
/** Whether st reduces over one axis that every read using it indexes in its last dimension (as above): rows read in vectors along the reduction. */
bool reduce_axis_contiguous(const StageInfo &st);
/** Product of st's reduce-axis extents (1 for no reduction): the taps of a kernel or pooling window. */
int64_t reduce_extent(const StageInfo &st);
/**
 * Vectorizing along output channels: weight_input(st) when its channel
 * extent is a multiple of the vector width and more than one vector.
 * The tiling then vectorizes that axis, stores the accumulator with it
 * innermost and packs the weight in panels of the vector width along it.
 */
ChannelVector channel_vector_input(const StageInfo &st);

std::vector<int64_t> prime_factors(int64_t n);  // with multiplicity, ascending
std::vector<int64_t> divisors(int64_t n);        // ascending
bool is_prime(int64_t n);

// ---- sketches -------------------------------------------------------------------

enum class PlanKind {
  Inline,         // compute_inline, fixed by the sketch
  Simple,         // elementwise / injective / small reduction: location choice + vectorize / parallel / unroll
  Tiled,          // multi-level tiling SSRSRS (+ cache_write, or + fused consumer)
  FusedConsumer,  // elementwise consumer tiled following its producer's tiles; the producer is computed at its tile
  RFactor,        // small spatial / large reduce extent: rfactor of the split reduce axis (rule_rfactor.cc)
};

/** The forms of an RFactor plan (rule_rfactor.cc). */
enum class RFactorForm {
  FewPoints,     // few points, a long reduction: partial sums in parallel (sides 0 and 1)
  Rows,          // many points, each a contiguous row: partial results in vectors along the row
  Accumulators,  // many points, each a vector of lanes: independent accumulators over the innermost reduce axis
};

struct StagePlan {
  std::string stage;
  PlanKind kind = PlanKind::Simple;
  bool loc_choice = false;    // Simple: compute location is a parameter (inline / root / at)
  bool cache_write = false;   // Tiled: accumulate in "<stage>.local" computed at the tile of the stage
  std::string consumer;       // Tiled: the fused consumer ("" when none)
  std::string producer;       // FusedConsumer: the tiled producer
  RFactorForm rf_form = RFactorForm::FewPoints;  // RFactor: which of rule_rfactor.cc's forms
  std::vector<std::pair<int, int64_t>> unroll_tiles;  // Simple: kUnrollTilesAttr {spatial position, tile size} (finalize)
};

/** Tile sizes of one axis: params "<stage>.tile.<axis>.<k>", k = 1..levels-1 (level 0 is derived). */
struct TileSpec {
  std::string stage, axis;
  int64_t extent = 1;
  int levels = 4;
  bool vec_axis = false;  // innermost level is the vector width (<= 16)
  /** The channel axis of a stage with a vec_channel_param choice: when it is 1, its levels are channel_vector_levels. */
  bool channel_vector = false;
  std::string param(int k) const { return stage + ".tile." + axis + "." + std::to_string(k); }
};

/** An integer parameter with a finite set of values. */
struct ChoiceSpec {
  std::string stage, name;
  std::vector<int64_t> values;
  std::vector<double> weights;  // sampling weights (empty: uniform)
  bool structural = false;      // changes the loop structure or a storage layout (part of SearchSpace::family)
};

struct Sketch {
  std::vector<StagePlan> plans;  // one per original stage, in stage order
  std::vector<TileSpec> tiles;
  std::vector<ChoiceSpec> choices;
  std::string description;
  StagePlan &plan(const std::string &stage);
  const StagePlan &plan(const std::string &stage) const;
};

// ---- rules ------------------------------------------------------------------------

enum class RuleResult { Skip, Apply, ApplyAndSkipRest };

class SketchRule {
 public:
  virtual ~SketchRule() = default;
  virtual std::string name() const = 0;
  virtual RuleResult condition(const Graph &g, const Sketch &s, const std::string &stage) const = 0;
  /** Sketches with the plan of `stage` (and possibly of stages already visited) decided. */
  virtual std::vector<Sketch> apply(const Graph &g, const Sketch &s, const std::string &stage) const = 0;
};

std::unique_ptr<SketchRule> make_rule_inline();
std::unique_ptr<SketchRule> make_rule_rfactor();
std::unique_ptr<SketchRule> make_rule_fuse_consumer();
std::unique_ptr<SketchRule> make_rule_cache_write();
std::unique_ptr<SketchRule> make_rule_multi_level_tiling();
std::unique_ptr<SketchRule> make_rule_simple();

/** Whether a stage gets multi-level tiling (a reduction with data reuse). */
bool needs_multi_level_tiling(const StageInfo &st);
/** The unique consumer of `stage` once sketch-inlined stages are looked through, or "". */
std::string effective_consumer(const Graph &g, const Sketch &s, const std::string &stage);
/** The consumer `stage` can be fused into as a tile, or "" (rule_fuse_consumer.cc). */
std::string fusible_consumer(const Graph &g, const Sketch &s, const std::string &stage);

// Parameter specs of a plan (filled after the sketch's structure is decided).
void add_tiling_params(const Graph &g, const StagePlan &p, Sketch &s);      // rule_multi_level_tiling.cc
void add_annotation_params(const Graph &g, const StagePlan &p, Sketch &s);  // rule_parallel_vectorize_unroll.cc
void add_simple_params(const Graph &g, const StagePlan &p, Sketch &s);      // rule_simple.cc
/**
 * A stage's kUnrollTilesAttr as {position among its spatial axes, tile size}:
 * its own op's, or that of a stage it reads elementwise (the anchor of a fused
 * epilogue); none for a reduction. Raises Error for an entry that is not
 * "axis:size" with an axis of the stage (a defect of the op that set it).
 */
std::vector<std::pair<int, int64_t>> parse_unroll_tiles(const Graph &g, const StageInfo &st);  // rule_simple.cc
/**
 * The extents of a simple stage's spatial loops outside the tiles it unrolls
 * (p.unroll_tiles), outermost first, as its "S.parallel" choice counts them:
 * its spatial extents, with a tiled axis' extent divided by the tile (rounded
 * up) and an axis unrolled whole left out.
 */
std::vector<int64_t> simple_outer_extents(const Graph &g, const StagePlan &p);  // rule_simple.cc
void add_location_params(const Graph &g, const StagePlan &p, Sketch &s);    // rule_inline.cc
void add_rfactor_params(const Graph &g, const StagePlan &p, Sketch &s);     // rule_rfactor.cc

// ---- tile sizes -------------------------------------------------------------------

/** Inner level lengths l[1..levels-1] of an axis of this extent (sometimes sample_register_rows). */
std::vector<int64_t> sample_tile(const TileSpec &t, std::mt19937_64 &rng);
/**
 * Register-block heights that are not powers of two: 6 rows x 64 columns or
 * 12 x 32 fill the 24 accumulator registers of AVX-512 (max_register_block), which no
 * power of two does (4 x 64 and 8 x 32 use 16). Measured by hand on GEMM 1024
 * (2-core Xeon, AVX-512, 1 thread, 3 interleaved runs): 6x64 at 180-188
 * GFLOP/s against 174-183 for 4x64 and 166-178 for 8x32.
 */
constexpr int64_t kRegisterRows[3] = {3, 6, 12};
/** How often sample_tile tries sample_register_rows first. */
constexpr double kRegisterRowsProbability = 0.25;
/**
 * How often sample_register_rows draws the whole axis as one outer tile
 * {ceil(E / r), 1, r}: each parallel task then holds a panel of the other
 * operand (GEMM: B's columns) and sweeps all rows past it, the loop order of
 * Goto and van de Geijn (ACM TOMS 34(3), 2008, section 5). Measured by hand on
 * GEMM 1024 (2 threads, 9 interleaved run-op rounds): 6x64 blocks over all
 * 1024 rows, 8 tasks of 128 columns, ran 1.09x the tuned 4x64 pick with
 * 128 x 256 tasks, and 1.08x a 6x64 block with 512-row tasks.
 */
constexpr double kOneTileProbability = 0.3;
/** How often SearchSpace::mutate first tries to fill the registers with kRegisterRows rows. */
constexpr double kFillRowsProbability = 0.125;
/**
 * How often SearchSpace::mutate first tries to unroll the reduction inside a
 * register block (unroll_some_reduction). Measured by hand on GEMM 1024 (2
 * threads, interleaved run-op rounds): two tuned picks whose reduction was
 * not unrolled gained 7% and 2% from unrolling it by 4; independent draws of
 * the reduce tile and max_unroll seldom land on such a pair (a 12-row block
 * needs R1 <= 5 and max_unroll 64).
 */
constexpr double kUnrollReductionProbability = 0.125;
/**
 * Levels {S1, S2, S3} of a spatial axis (not the vector or channel axis) with
 * S3 a kRegisterRows height r that does not divide the extent: the extent's
 * factors go to the tiles, S1 and an S2 span, and S2 = ceil(span / r); a
 * draw is kept when the outer tiles cover fewer than r rows each past the
 * extent. The outermost split then has a tail (split_levels: ShiftInwards
 * on an outer stage, whose last tile overlaps its neighbour; GuardWithIf on
 * a stage tiled alone). With probability kOneTileProbability the draw is
 * {ceil(E / r), 1, r}: one outer tile that runs fewer than r rows past the
 * extent (valid_tile allows it; the split of the S1 loop into blocks of r
 * then has the tail). Empty when r divides the extent (the divisor path
 * covers it) or no draw fits.
 */
std::vector<int64_t> sample_register_rows(const TileSpec &t, std::mt19937_64 &rng);
/**
 * Gives the register block r rows (S3 = r, a kRegisterRows height) on a
 * spatial axis that sample_register_rows may draw, keeping S1 and, as near as
 * it can, the S2 x S3 span (an axis in one outer tile stays in one, S1
 * recomputed); kept under the same waste rule as sample_register_rows.
 * False (l unchanged) when S3 is r already or nothing fits.
 */
bool set_register_rows(const TileSpec &t, std::vector<int64_t> &l, int64_t r);
/** The levels {l1, ..} of tile t in c (1 where unset), and their setter. */
std::vector<int64_t> get_tile(const Candidate &c, const TileSpec &t);
void set_tile(Candidate &c, const TileSpec &t, const std::vector<int64_t> &l);
/** Moves a factor between two levels; false when nothing legal was found. */
bool mutate_tile(const TileSpec &t, std::vector<int64_t> &l, std::mt19937_64 &rng);
/**
 * Levels l = {S1, S2, S3} (spatial) or {R1} (reduce) are positive with a
 * product <= the extent, or, on an axis that takes register rows, one outer
 * tile whose product runs fewer than S3 past the extent; the vector level is
 * a valid vector width.
 */
bool valid_tile(const TileSpec &t, const std::vector<int64_t> &l);
/**
 * Reshapes a register block: moves a prime factor p from the innermost level
 * (S3) of axis a to that of axis b, and p the other way at S2 where it can, so
 * the block keeps its size and each axis its S2 x S3 tile (4x64 -> 8x32 for
 * GEMM in one step, through no spilling block). Falls back to b's outermost
 * levels when b's S2 has no factor p. False when nothing legal was found.
 */
bool reshape_block(const TileSpec &ta, std::vector<int64_t> &la, const TileSpec &tb, std::vector<int64_t> &lb,
                   std::mt19937_64 &rng);
constexpr int64_t kMaxVector = 16;  // fp32 lanes of AVX-512
using schedules::kWholeWindow;  // a reduce axis this short is unrolled whole
/** The choice that vectorizes a tiled stage along its input's channel axis (0/1; see channel_vector_input). */
inline std::string vec_channel_param(const std::string &stage) { return stage + ".vec_channel"; }
/**
 * The choice (0/1) that orders a windowed blocked conv's inner reduce loops (R1) with its
 * input-channel lanes innermost, after the kernel's taps: each tap's loop then holds the
 * register block of a 1x1 conv (a weight vector per output-channel block, a broadcast input
 * per column) instead of unrolling the taps over the same accumulators. Where window_taps > 1
 * and blocked_lanes_reduce_axis >= 0.
 */
inline std::string lanes_last_param(const std::string &stage) { return stage + ".lanes_last"; }
/**
 * Whole AVX-512 vectors side by side in the innermost level of a
 * channel-vectorized axis of `extent`, read from its drawn innermost
 * length l3: 2 or 4 when l3 is that and 16 x l3 divides the extent, else 1.
 * (A drawn l3 of 2 or 4 would vectorize badly anyway, so the same draws now
 * pick the vector count.) Measured by hand on conv C64 56x56 3x3 (2 threads,
 * 5 interleaved rounds of `tetune run-op`, a slow phase of the machine): a
 * 32 x 1 x 8 block (channels x rows x columns) 3.5% faster than the tuner's
 * 16 x 2 x 8, 64 x 1 x 4 4% slower. Tuned (1000 trials, seeds 1-3), the
 * best schedules are now 32-channel blocks, at 420-424 GFLOP/s as the
 * 16-channel ones were before.
 */
inline int64_t channel_vectors(int64_t l3, int64_t extent) {
  return (l3 == 2 || l3 == 4) && extent % (kMaxVector * l3) == 0 ? l3 : 1;
}
/**
 * The levels {l1, l2, l3} of a channel-vectorized axis of `extent`, built from
 * its drawn levels: the innermost holds channel_vectors(l3) vectors of
 * kMaxVector lanes, and the outer levels shrink to fit the extent. The one rule
 * for instantiation (read_tiles), the weight's panel width and the
 * register-block bound (innermost_spatial).
 */
std::vector<int64_t> channel_vector_levels(std::vector<int64_t> l, int64_t extent);
/**
 * Innermost level of the vector axis: 2, 4, 8 or 16 lanes, or 2..4 whole AVX-512 vectors (32, 48, 64)
 * that the register block holds side by side (Halide splits a 32-wide vector into two native ones).
 * No other widths: LLVM 14 spilled a 7-lane vector (conv stride 2, 7 output columns) to a stack slot
 * it addressed with an aligned 32-byte move without realigning the stack, and the kernel crashed.
 */
inline bool valid_vector(int64_t v) {
  return v >= 2 && ((v <= kMaxVector && (v & (v - 1)) == 0) || (v % kMaxVector == 0 && v <= 4 * kMaxVector));
}

// ---- instantiation ----------------------------------------------------------------

/** What instantiation knows about a stage already scheduled. */
struct Placed {
  bool inlined = false;
  std::string compute_name;                 // the stage that evaluates the body ("C.local" after cache_write)
  std::vector<std::string> attach_points;   // loops of compute_name producers may be computed at
  std::string pending_at_stage, pending_at_axis;  // FusedConsumer: where its producer goes
  // A root Simple stage's loop over its rows: the loops inside it sweep one
  // row of its innermost axis ("" when it has none). Row-form reductions and
  // what they read go there (kAtRow).
  std::string row_point;
  // Where place_stage computed this stage: the stage and loop ("" at root), and whether that loop is a row.
  std::string at_stage, at_loop;
  bool at_row = false;
};

struct Inst {
  const Graph &g;
  const Sketch &sk;
  const Candidate &c;
  Schedule sch;
  std::map<std::string, Placed> placed;  // by original stage name (and by compute name for attach points)
  std::set<std::pair<std::string, std::string>> tail_loops;  // (stage, loop) made by a non-dividing split
  /** split() that records loops with a tail (they cannot be fused). */
  std::pair<std::string, std::string> split(const std::string &stage, const std::string &axis, int64_t factor,
                                            TailStrategy tail = TailStrategy::Auto);
  int64_t param(const std::string &name, int64_t dflt) const;
};

/** The split tail for a factor on a loop of (nominal) extent e. */
TailStrategy tail_for(int64_t e, int64_t factor, bool computed_at);

void instantiate_tiled(Inst &in, const StagePlan &p);           // rule_multi_level_tiling.cc
void instantiate_fused_consumer(Inst &in, const StagePlan &p);  // rule_fuse_consumer.cc
void instantiate_simple(Inst &in, const StagePlan &p);          // rule_simple.cc
void instantiate_rfactor(Inst &in, const StagePlan &p);         // rule_rfactor.cc
/** Applies the location decision of a non-output stage: inline, root, or compute_at; returns true if at. */
bool place_stage(Inst &in, const StagePlan &p, bool &inlined);  // rule_inline.cc
/**
 * The unique non-inlined compute consumer of stage at instantiation time, or
 * "". Given at_loop, where the stage has several and all but one are
 * computed at one loop of that one (softmax's exp, read by its sum at the
 * output's row and by the output), it is that one, and *at_loop the loop.
 */
std::string resolve_consumer(const Inst &in, const std::string &stage, std::string *at_loop = nullptr);
/**
 * "<stage>.at" value: at the consumer's row loop (Placed::row_point), or at
 * the outermost loop of a consumer itself computed at a row.
 */
constexpr int64_t kAtRow = 2;
/** A row-form reduction (rfactor's row form), or a stage one reads: it may go at its consumer's row (kAtRow). */
bool row_form_related(const Graph &g, const Sketch &s, const std::string &stage);  // rule_rfactor.cc
/** Whether stage's plan is rfactor's accumulators form. */
bool accumulators_form(const Sketch &s, const std::string &stage);  // rule_rfactor.cc
/**
 * Whether a producer of stage is in the accumulators form with the choice to split by rows: its
 * partial sums then run in their own parallel loop, and what stage computes from them is small.
 */
bool reads_sum_split_by_rows(const Graph &g, const Sketch &s, const std::string &stage);  // rule_rfactor.cc

// Annotation helpers (rule_parallel_vectorize_unroll.cc).
/** Adds the choice "stage.par_grain" (parallel tasks per thread) to s. */
void add_par_grain_param(const std::string &stage, Sketch &s);
/**
 * Fuses the first n names of `order` (adjacent leaves) and marks the result
 * parallel, split to at most par_grain * threads tasks; updates order (a
 * split puts the parallel outer loop and then the inner loop in place of the
 * fused names). Loops with a split tail are not fused (the fused loop would
 * lose the guard): fusion stops before the first of them. When the loops
 * before it all have extent 1, that tail loop is marked parallel instead
 * (not fused, order unchanged) if it has at most par_grain * threads iterations.
 * Leading loops of extent 1 are passed over (each counts towards n): the
 * fusion starts at the first loop that iterates.
 */
void fuse_parallel(Inst &in, const std::string &stage, std::vector<std::string> &order, int n);
/** Loops of at most this many iterations may be unrolled whole (unroll_inner). */
constexpr int64_t kMaxWholeUnroll = 64;
/** Iterations unrolled of a longer loop (unroll_inner): 4, else 2, where it divides the loop. */
constexpr int64_t kPartialUnroll = 4;
/**
 * Unrolls the given loops from the innermost outwards while the product of
 * extents <= max_unroll. The loop that stops it, when longer than
 * kMaxWholeUnroll, is split by kPartialUnroll (or half of it) where that
 * divides it and fits max_unroll, and its inner part unrolled.
 */
void unroll_inner(Schedule &sch, const std::string &stage, const std::vector<std::string> &loops, int64_t max_unroll);
/** Vectorizes a loop when its extent is in [2, 64]. */
void maybe_vectorize(Schedule &sch, const std::string &stage, const std::string &loop);
int64_t leaf_extent(const Schedule &sch, const std::string &stage, const std::string &loop);

}  // namespace ss

struct SearchSpace::Impl {
  Task task;
  int64_t max_register_block = 384;  // SearchSpace::max_register_block()
  int64_t vector_lanes = 16;         // SearchSpace::vector_lanes()
  ss::Graph graph;
  std::vector<ss::Sketch> sketches;
};

}  // namespace autotune
}  // namespace tetune

namespace tetune {
namespace autotune {
namespace ss {

/** Tile sizes of a tiled stage as read from a candidate (rule_multi_level_tiling.cc). */
struct AxisTiles {
  std::vector<int> tiled_sp, untiled_sp, tiled_red, untiled_red;  // axis positions
  std::map<int, std::vector<int64_t>> sp;   // spatial position -> {l1, l2, l3}
  std::map<int, int64_t> red;               // reduce position -> r1
};
AxisTiles read_tiles(const Inst &in, const StageInfo &st);
/** Rows first (rule_multi_level_tiling.cc): outer row tiles an image stage needs per thread to be split by rows. */
constexpr int64_t kRowsPerThread = 4;
/** The channel-vectorization input of st when its "<stage>.vec_channel" choice is 1, else none. */
ChannelVector channel_vector(const Inst &in, const StageInfo &st);
/**
 * The outer stage O of a tiled pair (the cache_write copy or the fused
 * consumer): splits its axes (positionally matching st's) into the levels
 * S0..S_L and the rest, fuses + parallelizes the outer loops, vectorizes the
 * innermost; returns the loop the inner stage is computed at.
 */
std::string tile_outer(Inst &in, const std::string &O, const std::vector<std::string> &o_axes, const StageInfo &st,
                       const AxisTiles &t, int L, int64_t parallel);
/** The inner stage of a pair (accumulator / fused producer): R0 S2 R1 S3 (L=1) or R0 R1 S3 (L=2). */
void tile_inner(Inst &in, const std::string &I, const StageInfo &st, const AxisTiles &t, int L, int64_t max_unroll);

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
