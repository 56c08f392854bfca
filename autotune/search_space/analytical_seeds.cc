// SearchSpace::seeds(): candidates from analytical models of the register
// block and the loop nest, placed in the same parameters the random
// annotation draws, so that the search measures them first and evolves from
// them, and autotune::default_schedule compiles the first one untuned.
//
// Three models, tried in this order on each multi-level tiled stage:
//  - GEMM (Low, Igual, Smith and Quintana-Orti, "Analytical Modeling Is
//    Enough for High-Performance BLIS", ACM TOMS 43(2), 2016, sections 3-4),
//    for a stage with two tiled spatial axes (rows, and the vector axis:
//    columns), one reduce axis and a packable reused input (B):
//    register block (their m_r x n_r) of n vectors of columns and as many
//    rows as fill SearchSpace::max_register_block() (AVX-512: 4 x 16 columns
//    x 6 rows, or 2 x 16 x 12; AVX2: 4 x 8 x 3, or 2 x 8 x 6),
//    the reduction unrolled by 4 inside it; all rows in one outer tile, the
//    row blocks swept past one packed panel of B; a parallel task holds 2
//    register-block widths of columns where their panels fit the L2 (else 1),
//    packed at root in panels as wide as the block (cache_read choice 3), so a
//    task streams K x n_r elements from L2.
//  - Direct convolution (Georganas et al., "Anatomy of High-Performance Deep
//    Learning Convolutions on SIMD Architectures", SC 2018, section 3), for a
//    stage whose weight is channel-vectorizable (analysis.cc's
//    channel_vector_input): 1 or 2 AVX-512 vectors of output channels times
//    a row of output columns in registers (the block at most
//    max_register_block()), the kernel window's taps unrolled inside, the input
//    channels outside; every outer tile in parallel.
//  - Spatial vector (any other tiled stage: depthwise convolutions, batched
//    matmuls of two activations): the last axis vectorized, a few rows of the
//    axis before it in registers, small reductions (kernel windows) whole
//    inside the block; a 1x1 blocked conv's block shares loads among
//    output-channel blocks and columns, its reduction in chunks that fit L1
//    where their block holds more (conv_register_block), or on AVX-512 whole
//    panels streamed from L2 into 4 blocks x 4 pixels (l2_panel_block); a
//    blocked conv with a window holds 2 output-channel blocks on AVX-512.
// Every other choice of the sketch gets its analytical value (fill_choices):
// elementwise stages vectorized and parallel over their fewest outer loops
// that give 16 tasks per thread, or serial in a DAG of little work
// (simple_parallel_loops), parallel grain 16 tasks per thread, tiled stages
// parallel over every S0 loop, a window's pad inlined, at root or at the
// window's tiles (inline_blocked_pad, pad_at_window, read_by_tiled). The
// models fix structure, not exact sizes: the search then moves factors, and
// measurement decides.
#include <algorithm>
#include <optional>

#include "autotune/search_space/search_space.h"
#include "autotune/search_space/search_space_internal.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {

using ss::Sketch;
using ss::TileSpec;

namespace {

constexpr int64_t kReduceUnroll = 4;
constexpr int64_t kParGrain = 16;
// Work (points times reduce extents, over the DAG) below which its simple
// stages run on one thread: handing a parallel loop to the other threads
// costs microseconds, more than such a DAG computes (bench/RESULTS.md,
// 2026-11-25 third session and 2026-12-06 thirty-fourth).
constexpr int64_t kSerialWork = 8192;
// The attach point of a pad computed at its window consumer (rule_inline.cc): inside its spatial tile.
constexpr int64_t kPadAt = 1;
// A core's L2 on the x86-64 CPUs tetune targets (Zen 4, Skylake-SP: 1 MiB; a
// larger one only makes pad_at_window's choice conservative).
constexpr int64_t kL2Bytes = int64_t(1) << 20;

// The tiles of one GEMM-like stage of a sketch: rows, columns (vector), one reduce axis.
struct GemmTiles {
  const TileSpec *rows = nullptr, *cols = nullptr, *reduce = nullptr;
};

GemmTiles gemm_tiles(const Sketch &s, const std::string &stage) {
  GemmTiles g;
  int spatial = 0, reduce = 0;
  for (const auto &t : s.tiles) {
    if (t.stage != stage) continue;
    if (t.channel_vector) return {};
    if (t.levels == 2) {
      g.reduce = &t;
      reduce++;
    } else if (t.levels == 4) {
      (t.vec_axis ? g.cols : g.rows) = &t;
      spatial++;
    }
  }
  if (spatial != 2 || reduce != 1 || !g.rows || !g.cols) return {};
  return g;
}

// Whether the sketch has choice `name` with value v.
bool allows(const Sketch &s, const std::string &name, int64_t v) {
  for (const auto &c : s.choices)
    if (c.name == name) return std::find(c.values.begin(), c.values.end(), v) != c.values.end();
  return false;
}

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The largest allowed value <= cap (the smallest when none is).
int64_t largest_upto(const ss::ChoiceSpec &c, int64_t cap) {
  int64_t best = c.values.front();
  for (auto v : c.values)
    if (v <= cap && (best > cap || v > best)) best = v;
  return best;
}

// The largest allowed power of two <= cap: a vector of 14 or 7 lanes (a
// divisor of 56 columns) is split by LLVM into odd pieces, and an exp() in it
// (SiLU's sigmoid) runs lane by lane.
int64_t largest_power_of_two_upto(const ss::ChoiceSpec &c, int64_t cap) {
  int64_t best = 1;
  for (auto v : c.values)
    if (v <= cap && (v & (v - 1)) == 0 && v > best) best = v;
  return std::find(c.values.begin(), c.values.end(), best) != c.values.end() ? best : c.values.front();
}

// A stage read by a multi-level tiled stage (a conv's pad) is computed at
// root: inlined, its bounds test would run once per tap, and computed at a
// tile it is recomputed for every overlapping window. So is the pad of an NCHW
// input read as NCHW1c by a stem conv, although its copy is scalar (innermost
// axis 1): inlined, the 3x3 stems of MobileNetV3, EfficientNet, RegNet,
// ShuffleNet and PP-OCRv4 ran 1.4-2.5x slower (bench/RESULTS.md, fortieth
// session).
bool read_by_tiled(const ss::Graph &g, const Sketch &s, const std::string &stage) {
  auto it = g.consumers.find(stage);
  if (it == g.consumers.end()) return false;
  for (const auto &c : it->second)
    if (s.plan(c).kind == ss::PlanKind::Tiled) return true;
  return false;
}

// The only consumer of `stage`, when it is a tiled stage reducing over a
// window alone (a depthwise conv); else null.
const StageInfo *window_alone_reader(const ss::Graph &g, const Sketch &s, const std::string &stage) {
  auto it = g.consumers.find(stage);
  if (it == g.consumers.end() || it->second.size() != 1) return nullptr;
  const std::string &c = it->second.front();
  if (s.plan(c).kind != ss::PlanKind::Tiled) return nullptr;
  const StageInfo &st = g.stage(c);
  if (!st.is_reduction()) return nullptr;
  for (const auto &r : st.reduce_axes)
    if (r.extent > ss::kWholeWindow) return nullptr;
  return &st;
}

// The pad of a depthwise conv in a blocked layout (NCHW16c: the padding
// leaves the innermost axis, the channel lanes, as the conv's output has it)
// is inlined where that is cheaper than a padded copy at root or at the
// conv's tiles: inlined, every tap of every output pays a bounds test (on
// whole vectors); the copy costs a pass over the padded input. So inlined
// with a window of at most 3x3 taps (kInlinePadMaxTaps), with a stride (the
// input is larger than the output), or with an output of at most 14x14 (most
// windows touch the border). Measured on the 38 depthwise convs of
// MobileNetV3-Large, EfficientNet-B0 and PP-OCRv4 det, 2 threads: a 5x5
// window at stride 1 over 28x28 or 40x40 outputs ran 15-25% slower inlined,
// the others mostly faster (bench/RESULTS.md, thirty-fourth session).
constexpr int64_t kInlinePadMaxTaps = 9;
constexpr int64_t kInlinePadMaxPoints = 14 * 14;
bool inline_blocked_pad(const ss::Graph &g, const Sketch &s, const std::string &stage) {
  const StageInfo *conv = window_alone_reader(g, s, stage);
  const Shape &pad = g.stage(stage).tensor.shape();
  if (!conv || pad.size() != 5 || conv->shape.size() != 5 || conv->reduce_axes.size() != 2) return false;
  if (pad.back() != conv->shape.back() || pad.back() <= 1) return false;  // the lanes are padded (NCHW)
  const int64_t kh = conv->reduce_axes[0].extent, kw = conv->reduce_axes[1].extent;
  const bool strided = pad[2] - (kh - 1) > conv->shape[2] || pad[3] - (kw - 1) > conv->shape[3];
  return ss::window_taps(*conv) <= kInlinePadMaxTaps || strided || conv->shape[2] * conv->shape[3] <= kInlinePadMaxPoints;
}

// A stage larger than a core's L2 whose only consumer is a tiled stage
// reducing over a window alone (an NCHW depthwise conv's pad at 112x112):
// computed at the consumer's tile, where it is recomputed only for the
// window's halo. At root it would be a padded copy of the input written and
// read back through memory: in a model, where other kernels run in between,
// its lines are cold (MobileNetV3's stride-2 depthwise conv of 64x112x112:
// 0.63 -> 0.35 ms at 1 thread). A smaller one stays at root, where it ran faster.
bool pad_at_window(const ss::Graph &g, const Sketch &s, const std::string &stage) {
  const Tensor &pad = g.stage(stage).tensor;
  return pad.size() * pad.dtype().bytes() > kL2Bytes && window_alone_reader(g, s, stage);
}

// The work of one stage: its points times its reduce extent (0 for a placeholder).
int64_t stage_work(const StageInfo &st) {
  if (st.kind != StageInfo::Compute) return 0;
  int64_t points = 1;
  for (int64_t e : st.shape) points *= e;
  return points * ss::reduce_extent(st);
}

// The work of the stages outside the multi-level tiled plans (and their fused
// consumers), what the simple stages' parallel loops can hold: simple, inlined
// and rfactor stages (a GEMV's rfactor product computed at its output's loop).
// At most the whole DAG's work (one plan per stage), so a DAG whose work is
// below kSerialWork passes this test too.
int64_t untiled_work(const ss::Graph &g, const Sketch &s) {
  int64_t total = 0;
  for (const ss::StagePlan &p : s.plans)
    if (p.kind != ss::PlanKind::Tiled && p.kind != ss::PlanKind::FusedConsumer) total += stage_work(g.stage(p.stage));
  return total;
}

// A simple stage runs in parallel over its fewest outer loops (outside the
// tiles it unrolls) that give kParGrain tasks per thread, the loops inside
// them whole in each task; serially where the work outside its tiled stages
// is below kSerialWork: a small DAG, or an LSTM step, whose gates are a tiled
// product of 1024 x 256 and whose cell and hidden states, 256 points each,
// ran 2 us faster a step on one thread (bench/RESULTS.md, forty-first
// session). Fused
// with the parallel loop, an inner loop recomputes its indices by division at
// every iteration, and what its body computes from the outer ones alone is no
// longer hoisted: a Winograd input transform (64 channels at 56x56), when
// its points e were its outer loop, ran 2.2x slower with all 4 loops fused
// than in parallel over (e, c) (bench/RESULTS.md, thirteenth session).
int64_t simple_parallel_loops(const ss::Graph &g, const Sketch &s, const ss::ChoiceSpec &ch) {
  if (ch.values.front() == 0 && untiled_work(g, s) < kSerialWork) return 0;
  const std::vector<int64_t> loops = ss::simple_outer_extents(g, s.plan(ch.stage));
  const int64_t wanted = kParGrain * std::max(1, g.threads);
  int64_t tasks = 1;
  for (int64_t k : ch.values) {
    if (k == 0 || k > static_cast<int64_t>(loops.size())) continue;
    tasks *= loops[k - 1];
    if (tasks >= wanted) return k;
  }
  return ch.values.back();
}

// Analytical values of every choice (see the top of this file); tiles drawn
// deterministically for what no model sets.
Candidate filled(const ss::Graph &g, const Sketch &s, int si) {
  std::mt19937_64 rng(0);
  Candidate c;
  c.sketch = si;
  for (const auto &t : s.tiles) ss::set_tile(c, t, ss::sample_tile(t, rng));
  for (const auto &ch : s.choices) {
    const ss::StagePlan &p = s.plan(ch.stage);
    int64_t v = ch.values.front();
    // Scalar where the columns gather: ShuffleNetV2's misaligned channel gathers ran 2.4x faster
    // so, PP-OCR det's 4x nearest Resize 2.7x (bench/RESULTS.md, forty-first session).
    if (ends_with(ch.name, ".vec"))
      v = ss::columns_gathered(g.stage(ch.stage)) ? ch.values.front() : largest_power_of_two_upto(ch, ss::kMaxVector);
    else if (ends_with(ch.name, ".par_grain")) v = largest_upto(ch, kParGrain);
    // Serial over a sum split by rows (a pool's mean): the sum's partials have their own parallel loop;
    // in parallel, the few points cost one more hand-off (a 112x112 pool 0.0100 -> 0.0079 ms alone).
    else if (ends_with(ch.name, ".parallel") && p.kind == ss::PlanKind::Simple)
      v = ch.values.front() == 0 && ss::reads_sum_split_by_rows(g, s, ch.stage) ? 0 : simple_parallel_loops(g, s, ch);
    else if (ends_with(ch.name, ".max_unroll")) v = largest_upto(ch, 16);
    else if (ends_with(ch.name, ".unroll")) v = ch.values.back() <= ss::kWholeWindow ? ch.values.back() : v;
    else if (ends_with(ch.name, ".loc")) {
      const bool at = pad_at_window(g, s, ch.stage) || ss::row_form_related(g, s, ch.stage) ||
                      ss::accumulators_form(s, ch.stage);
      v = inline_blocked_pad(g, s, ch.stage) && ch.values.front() == 0 ? 0
          : at                                                           ? 2
          : read_by_tiled(g, s, ch.stage)                                ? 1
                                                                         : ch.values.front();
    }
    else if (ends_with(ch.name, ".at") && pad_at_window(g, s, ch.stage)) v = largest_upto(ch, kPadAt);
    else if (ends_with(ch.name, ".at") && ss::row_form_related(g, s, ch.stage)) v = ss::kAtRow;
    else if (ends_with(ch.name, ".at") && ss::accumulators_form(s, ch.stage)) v = 1;  // the consumer's innermost point
    c.params[ch.name] = v;
  }
  return c;
}

// Tiled stage st: parallel over every S0 loop (the untiled axes, of extent 1,
// come first in the outer loop order), at most kParGrain tasks per thread.
void parallel_over_outer_tiles(const Sketch &s, const StageInfo &st, Candidate &c) {
  const int64_t outer = static_cast<int64_t>(st.shape.size());  // one loop per axis: untiled, or its S0
  for (const auto &ch : s.choices)
    if (ch.name == st.name + ".parallel") c.params[ch.name] = largest_upto(ch, outer);
}

// The vector width (a power of two <= cap and <= e) with the most useful
// lanes per vector instruction, v x e / (the lanes its tiles cover): 16 for
// 14 columns (one tile, 2 lanes idle), 4 for 7; ties go to the wider.
int64_t vector_width(int64_t e, int64_t cap) {
  int64_t best = 2;
  double best_lanes = 0;
  for (int64_t v = 2; v <= cap && v <= e; v *= 2) {
    double lanes = static_cast<double>(v) * e / ((e + v - 1) / v * v);
    if (lanes >= best_lanes) best = v, best_lanes = lanes;
  }
  return best;
}

// The largest d <= cap dividing e (1 when none but 1).
int64_t divisor_upto(int64_t e, int64_t cap) {
  for (int64_t d = std::min(cap, e); d > 1; d--)
    if (e % d == 0) return d;
  return 1;
}

// The rows of a register block (at most cap) with the most useful rows per
// block, e / (the blocks that cover e): a tail block where no divisor comes
// close (197 tokens: 8 rows, 25 blocks of which the last computes 3 rows
// beyond e, where the largest divisor is 1); ties go to the fewer rows, so
// that a divisor wins when it is as good (7 for 28 rows, not 8).
int64_t rows_upto(int64_t e, int64_t cap) {
  int64_t best = 1;
  for (int64_t r = 2; r <= std::min(cap, e); r++)
    if ((e + best - 1) / best > (e + r - 1) / r) best = r;
  return best;
}

// Spatial-vector seed of a stage with a weight (weight_input) and a 1x1
// window or a short reduction (a stem conv's 3x3x3 taps): puts up to
// kWeightChannels of its output channels in the register block (a divisor of
// their extent) and returns how many; 1 otherwise (depthwise convs, batched
// matmuls, where no load is shared).
constexpr int64_t kWeightChannels = 8;
constexpr int64_t kShortReduce = 32;
/** A one-row product with a reduction this long streams its weight (the GEMV seed). */
constexpr int64_t kGemvReduce = 64;
// A spatial-vector stage reducing across this many elements besides its
// window's taps (attention's Q K^T, K = 64) keeps its accumulators in a
// local copy written back once: ViT-B/16's Q K^T (12 x 197 x 197, K = 64)
// ran 1.44x as fast so, BERT-base's 1.13x, PP-OCRv4 det's NCHW 3x3 convs of
// 96 -> 24 channels 1.15-1.96x (bench/RESULTS.md, thirty-ninth session).
// Depthwise convs (taps only) keep the output as their accumulator.
constexpr int64_t kCrossReduce = 16;
// The 4-level tile of spatial axis `axis` (a position in st.spatial_axes) of st, or null.
const TileSpec *stage_tile(const Sketch &s, const StageInfo &st, int axis) {
  if (axis < 0) return nullptr;
  for (const auto &t : s.tiles)
    if (t.stage == st.name && t.levels == 4 && t.axis == st.spatial_axes[axis]) return &t;
  return nullptr;
}

// A kernel window over many input channels (a 3x3 conv of 96 channels): the reduction is long and its taps make it so.
bool window_over_many_channels(const StageInfo &st) {
  int64_t largest = 1;
  for (const auto &r : st.reduce_axes) largest = std::max(largest, r.extent);
  return ss::reduce_extent(st) / largest > 1 && ss::reduce_extent(st) > kShortReduce;
}

// Accumulator vectors of the spatial-vector block of a window over many input channels (an NCHW conv whose output
// channels are not whole vector blocks: PP-OCR det's 3x3 convs of 96 -> 24 channels on AVX-512): up to kWeightChannels
// output channels x up to 2 vectors of columns, each input vector serving every channel. Against the 1 channel x 8 rows
// seeded before, on the AMX Xeon (AVX-512, 2 threads; bench/RESULTS.md, thirty-first session): det's conv 4.1-4.4 ms
// against 11.9-12.3; 0.35-0.95x the time on 15 of 17 3x3 and 5x5 shapes of 12-56 output channels; 1.2-1.4x slower on
// the two of 12 channels (6 channels in the block) at 2 threads, 1.1x at 1. Where the register budget holds fewer than
// 16 (AVX2's 12), rows as before: rows had beaten 8 channels x 1 vector on det's neck (1.7x; 2026-11-25, an AMD EPYC,
// older code), and the block is not measured on AVX2.
constexpr int64_t kWindowBlockVectors = 16;

int64_t weight_channels_in_registers(const StageInfo &st, const Sketch &s, const TileSpec *rows, int64_t accumulators,
                                     Candidate &c) {
  const ss::ChannelVector w = ss::weight_input(st);
  if (!w.found()) return 1;
  // (A blocked conv's window gets its output-channel blocks below, by the window_axis rule.)
  if (window_over_many_channels(st) && (accumulators < kWindowBlockVectors || ss::blocked_input_lanes(st) > 0)) return 1;
  const TileSpec *t = stage_tile(s, st, w.axis);
  if (!t || t == rows) return 1;
  const int64_t n = divisor_upto(t->extent, kWeightChannels);
  ss::set_tile(c, *t, {1, 1, n});
  return n;
}

// A 1x1 blocked conv's register block (the Winograd GEMM's too): `chans`
// output-channel blocks x `cols` columns of the image, each accumulator one
// vector. Each broadcast input is shared by the chans blocks and each weight
// vector by the columns, so of the blocks that fill the most of
// `accumulators` (columns dividing the width), the one with the fewest loads
// per FMA, 1 / chans + 1 / cols, is taken: AVX2's 12 give 2 x 4 (1.4-1.6x
// faster than 1 x 8 on ResNet-50's 1x1 convs, bench/RESULTS.md), AVX-512's 14
// give 2 x 7. As onnxruntime's MLAS NCHWc kernels block filters (up to 4) x
// outputs.
//
// Two forms, by `panel_bytes` (the whole reduction x one vector):
//  * > 0, whole panels: the blocks' panels must stay in half of L1 while the
//    columns sweep past them (a 1x1 conv of 1024 channels at 14x14 ran 1.14x
//    slower with 4 x 2 than with 1 x 7); chans 1, 2 or 4.
//  * 0, chunked: the input channels go in chunks whose panels do fit, each
//    chunk swept past a whole tile of the output before the next, the output
//    accumulating in memory between chunks (GotoBLAS's k_c blocking: Goto and
//    van de Geijn, "Anatomy of High-Performance Matrix Multiplication", ACM
//    TOMS 34(3), 2008, section 6; set_chunked_tiles). chans 2 or 4: chunking
//    pays only where blocks share the inputs.
// Where no divisor of the width above 1 fits a block's columns (7 in a
// block of 4 blocks x 3), `rows` image rows when `height` is given (> 1).
// Where none fits even all the accumulators (a prime width above them: 17,
// 73), without `height`, guarded tiles of columns, the last tile partial.
// The seed takes the chunked block where it holds more output (1x1 convs of
// 256 or more fp32 input channels on AVX2).
constexpr int64_t kL1Bytes = 32 * 1024;  // L1d of a core: Zen 3 and 4, Skylake; Sapphire Rapids has 48 KiB
// The K block of a GEMM register block whose rows of A take `row_bytes` per
// reduction step (block rows x dtype bytes): where the block's slice of A
// over the whole reduction exceeds a core's L1d, the largest divisor of the
// reduction whose slice fits half of it (Goto and van de Geijn's k_c, TOMS
// 2008, section 6); 0 where the whole slice fits, or no divisor of at least
// kMinKBlock does. The block is then under half the reduction, so a task
// runs at least 3 of them.
constexpr int64_t kMinKBlock = 64;
int64_t k_block(int64_t reduce_extent, int64_t row_bytes) {
  if (reduce_extent * row_bytes <= kL1Bytes) return 0;
  const int64_t kc = divisor_upto(reduce_extent, kL1Bytes / 2 / row_bytes);
  return kc >= kMinKBlock ? kc : 0;
}

// The share of the threads' time that `tasks` equal parallel tasks keep busy:
// tasks / (threads x ceil(tasks / threads)).
double thread_balance(int64_t tasks, int threads) {
  const int64_t t = std::max(1, threads);
  return static_cast<double>(tasks) / (t * ((tasks + t - 1) / t));
}

// The row blocks per outer tile of a GEMM seed over `rows` rows in blocks of
// block_rows: all of them (one tile) where its column tasks alone
// (col_tasks) keep at least kBalancedShare of the threads busy; else those of
// the fewest tiles (up to kMaxRowTiles) that balance best. Tiles make r x
// col_tasks tasks where they divide the rows, else r alone: loops with a tail
// are not fused (fuse_parallel), and the row tiles come first. Each row tile
// re-reads its task's panels of B, hence the fewest. (ConvNeXt-T's and
// Swin-T's MLPs of 96, 192 and 384 columns make 3 column tasks; on 2 threads
// the second round ran one task alone.)
constexpr double kBalancedShare = 0.85;
constexpr int64_t kMaxRowTiles = 4;
int64_t gemm_row_tile_blocks(int64_t col_tasks, int64_t rows, int64_t block_rows, int threads) {
  const int64_t row_blocks = (rows + block_rows - 1) / block_rows;
  auto blocks = [&](int64_t r) { return (row_blocks + r - 1) / r; };
  auto tasks = [&](int64_t r) { return r == 1 || rows % (blocks(r) * block_rows) == 0 ? r * col_tasks : r; };
  int64_t best = 1;
  if (thread_balance(tasks(1), threads) < kBalancedShare)
    for (int64_t r = 2; r <= std::min(kMaxRowTiles, row_blocks); r++)
      if (thread_balance(tasks(r), threads) > thread_balance(tasks(best), threads)) best = r;
  return blocks(best);
}

struct ConvRegisterBlock {
  int64_t chans = 1, cols = 1, rows = 1;
  double useful = 0;  // accumulators that hold output (guarded rows counted by the rows they cover)
};
// With `tail_cols`, the columns are the count with the fewest tiles, guarded,
// even where a divisor fits (an image stem's, whose blocks share every load).
ConvRegisterBlock conv_register_block(int64_t chan_extent, int64_t width, int64_t height, int64_t accumulators,
                                      int64_t panel_bytes, bool tail_cols = false) {
  const bool chunked = panel_bytes == 0;
  const bool guarded_cols = tail_cols || (height <= 1 && divisor_upto(width, accumulators) == 1);
  ConvRegisterBlock best;
  double best_loads = 2;
  for (int64_t chans : {1, 2, 4}) {
    if (chan_extent % chans != 0 || chans > accumulators || (chunked && chans == 1)) continue;
    if (!chunked && chans > 1 && chans * panel_bytes > kL1Bytes / 2) continue;
    const int64_t cap = accumulators / chans;
    ConvRegisterBlock b{chans, guarded_cols ? rows_upto(width, cap) : divisor_upto(width, cap), 1, 0};
    b.useful = static_cast<double>(chans * b.cols) * width / ((width + b.cols - 1) / b.cols * b.cols);
    if (b.cols == 1 && height > 1) {
      b.rows = std::min(height, accumulators / chans);
      const int64_t tiles = (height + b.rows - 1) / b.rows;
      b.useful = static_cast<double>(chans * b.rows) * height / (tiles * b.rows);
    }
    const double loads = 1.0 / chans + 1.0 / (b.cols * b.rows);
    if (b.useful > best.useful || (b.useful == best.useful && loads < best_loads)) best = b, best_loads = loads;
  }
  return best;
}

// A 1x1 blocked conv's block where whole panels stream from L2: 4
// output-channel blocks x 4 pixels (a row of 4 columns, or 2 rows x 2
// columns where 4 does not divide the width), 16 accumulators, so each weight
// vector and each broadcast input serves 4 FMAs (0.5 loads per FMA, against
// 1.07 for the 1 x 14 that the L1 bound above leaves). Only where that bound
// would keep a single block (two panels over half of L1: 256 or more fp32
// input channels in 16-lane blocks), the four panels fit half of L2, and the
// register file holds the block beside its 4 weight vectors (`accumulators`
// at least 20: AVX-512's 32 registers; AVX2's 12 get conv_register_block).
// On an Ice Lake Xeon, 1.3-1.6x faster than 1 x 14 on ResNet-50's 1x1 convs
// of 256-1024 input channels at 56x56-14x14 (bench/RESULTS.md, seventeenth
// session). As onnxruntime's MLAS NCHWc pointwise kernel, which blocks up to
// 4 filter blocks.
std::optional<ConvRegisterBlock> l2_panel_block(int64_t chan_extent, int64_t width, int64_t height,
                                                int64_t accumulators, int64_t panel_bytes) {
  constexpr int64_t kChans = 4, kPixels = 4;
  if (accumulators < kChans * kPixels + kChans || chan_extent % kChans != 0) return std::nullopt;
  if (2 * panel_bytes <= kL1Bytes / 2 || kChans * panel_bytes > kL2Bytes / 2) return std::nullopt;
  if (width % kPixels == 0) return ConvRegisterBlock{kChans, kPixels, 1, double(kChans * kPixels)};
  if (width % 2 == 0 && height % 2 == 0) return ConvRegisterBlock{kChans, 2, 2, double(kChans * kPixels)};
  return std::nullopt;
}

// The spatial tile of stage S just before `tile` (a conv's output rows before its columns), unless that is
// `other` (its output channels) or there is none: null.
const TileSpec *tile_before(const Sketch &s, const std::string &S, const TileSpec *tile, const TileSpec *other) {
  const TileSpec *prev = nullptr;
  for (const auto &t : s.tiles) {
    if (t.stage != S || t.levels != 4) continue;
    if (&t == tile) return prev != other ? prev : nullptr;
    prev = &t;
  }
  return nullptr;
}

// The tiles of a chunked conv_register_block seed on stage S: the block in S3; in S2 the
// rest of the width, then image rows and channel blocks while the output
// tile (read and written once per chunk) fits half of L1 and the outer tiles
// (parallel) still number kChunkedTasks per thread; the reduction's outer
// channel blocks (R1) in chunks whose `chans` panels (panel bytes each, over
// the whole reduction) fill at most half of L1, its inner block whole.
// 4 tasks per thread, so that the tiles balance over the threads.
constexpr int64_t kChunkedTasks = 4;
// Whether `groups` register blocks of output channels give each of `threads` 2 tasks, so that a
// seed may keep all of an odd image's rows in one outer tile (no row tiles to spread): below it,
// 832 -> 32 and 64 -> 64 channels at 7x7 (1x1) and 128 -> 32 (3x3) ran 0.79-0.88x
// (bench/RESULTS.md, twenty-seventh session).
bool groups_fill_threads(int64_t groups, int threads) { return groups >= 2 * std::max(1, threads); }
// Output-channel blocks of the lanes-last seed of a windowed conv on AVX2 (x 2 columns: 8 of its 16 registers accumulate).
constexpr int64_t kQuadBlocks = 4;
void set_chunked_tiles(const Sketch &s, const std::string &S, const ConvRegisterBlock &b, const TileSpec &out_chans,
                       const TileSpec &cols, const TileSpec *image_rows, int64_t row_bytes, int64_t panel, int threads,
                       Candidate &c) {
  // Register rows (b.rows > 1) all in one outer tile, the last block guarded (7 rows as 3 + 3 + 1),
  // where the channel blocks fill the threads: tiles of b.rows on the output shift the last
  // inwards and compute 9 rows for 7, but spread a few blocks over the threads.
  const int64_t blocks = out_chans.extent / b.chans, wanted = kChunkedTasks * std::max(1, threads);
  const bool rows_in_one_tile = image_rows && b.rows > 1 && groups_fill_threads(blocks, threads);
  const int64_t row_blocks = rows_in_one_tile ? (image_rows->extent + b.rows - 1) / b.rows : 1;
  int64_t tile_rows = b.rows * row_blocks;
  if (image_rows && b.rows == 1)
    tile_rows = divisor_upto(image_rows->extent, std::max<int64_t>(1, kL1Bytes / 2 / (b.chans * row_bytes)));
  const int64_t row_tiles = image_rows ? (image_rows->extent + tile_rows - 1) / tile_rows : 1;
  int64_t chan_tiles = divisor_upto(blocks, std::max<int64_t>(1, kL1Bytes / 2 / (b.chans * tile_rows * row_bytes)));
  while (chan_tiles > 1 && blocks / chan_tiles * row_tiles < wanted) chan_tiles = divisor_upto(blocks, chan_tiles - 1);
  ss::set_tile(c, out_chans, {1, chan_tiles, b.chans});
  // Columns that do not divide the width (a prime one, 17) in guarded tiles of b.cols.
  ss::set_tile(c, cols, cols.extent % b.cols ? std::vector<int64_t>{1, 1, b.cols} : std::vector<int64_t>{1, cols.extent / b.cols, b.cols});
  if (image_rows) ss::set_tile(c, *image_rows, b.rows > 1 ? std::vector<int64_t>{1, row_blocks, b.rows} : std::vector<int64_t>{1, tile_rows, 1});
  for (const auto &t : s.tiles)
    if (t.stage == S && t.levels == 2)
      ss::set_tile(c, t, {t.extent <= ss::kMaxVector ? t.extent : divisor_upto(t.extent, kL1Bytes / 2 / (b.chans * panel / t.extent))});
}

// Vectors of columns side by side in a spatial-vector block of `others`
// accumulators per column vector: up to 4 where the block would otherwise hold
// few (at most `accumulators` in all), so that several accumulator chains are
// in flight; columns must divide into them.
int64_t column_vectors(int64_t extent, int64_t width, int64_t others, int64_t accumulators = 8) {
  int64_t n = 1;
  while (width == ss::kMaxVector && n < 4 && others * n * 2 <= accumulators && extent % (width * n * 2) == 0) n *= 2;
  return n;
}

bool builds(const SearchSpace &space, const Candidate &c) {
  if (space.register_block(c) > space.max_register_block()) return false;
  try {
    space.schedule(c);
    return true;
  } catch (const Error &) {
    return false;  // the model's point is not in this sketch (a guard it cannot take)
  }
}

// Reduce tiles of S: whole when short (a kernel window), else kReduceUnroll where it divides.
void set_reduce_tiles(const Sketch &s, const std::string &S, Candidate &c, int64_t long_unroll) {
  for (const auto &t : s.tiles)
    if (t.stage == S && t.levels == 2)
      ss::set_tile(c, t, {t.extent <= ss::kWholeWindow ? t.extent : (t.extent % long_unroll == 0 ? long_unroll : 1)});
}

// A direct-convolution register block: `vectors` AVX-512 vectors of output
// channels x `cols` output columns x `rows` output rows.
struct ConvBlock {
  int64_t vectors = 1, cols = 1, rows = 1;
  double score = 0;  // accumulator registers doing useful work
};

// Blocks for C channels, W columns, H rows, best first (at most kConvBlocks):
// the useful accumulators, vectors x cols x rows x (W / the columns the
// tiles cover), counted up to the max_block budget (SearchSpace::max_register_block);
// columns are whole vector widths (valid_vector; a tail tile where they do not divide W), rows
// divide H. Ties go to more columns (contiguous input reads).
constexpr size_t kConvBlocks = 2;
std::vector<ConvBlock> conv_blocks(int64_t C, int64_t W, int64_t H, int64_t max_block) {
  std::vector<ConvBlock> all;
  const int64_t budget = max_block / ss::kMaxVector;  // accumulators, in vectors of kMaxVector lanes
  for (int64_t vectors : {2, 1}) {
    if (C % (vectors * ss::kMaxVector) != 0) continue;
    for (int64_t cols : {16, 8, 4, 2, 1}) {
      if ((cols > 1 && cols > W) || (cols == 1 && W > 1)) continue;
      const int64_t covered = (W + cols - 1) / cols * cols;
      for (int64_t rows = 1; rows <= H && vectors * cols * rows <= budget; rows++) {
        if (H % rows != 0) continue;
        ConvBlock b{vectors, cols, rows, 0};
        b.score = static_cast<double>(vectors * cols * rows) * W / covered;
        all.push_back(b);
      }
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const ConvBlock &a, const ConvBlock &b) {
    return a.score > b.score || (a.score == b.score && a.cols > b.cols);
  });
  if (all.size() > kConvBlocks) all.resize(kConvBlocks);
  return all;
}

}  // namespace

std::vector<Candidate> SearchSpace::seeds() const {
  std::vector<Candidate> out;
  // 0: GEMM or convolution model; 1, 2: spatial vector alone or fused, with an accumulator copy (a GEMV's: 2, 1);
  // -1: spatial vector of a short reduction (before the conv model)
  std::vector<int> rank;
  auto keep = [&](const Candidate &c, int r = 0) {
    if (builds(*this, c)) out.push_back(c), rank.push_back(r);
  };
  for (int si = 0; si < num_sketches(); si++) {
    const Sketch &s = impl_->sketches[si];
    // A DAG of elementwise and injective stages only (data movement, a
    // Winograd transform): the analytical choices alone, full-width vectors
    // parallel over the outer loops (filled). Not where a stage reduces (layer norm,
    // softmax): vectors across rows gather, and ran no faster than the
    // elementwise default; and Halide 14 mis-lowers a reduction's update
    // whose rows are one more than the vector (3 rows by 2 lanes) when it
    // reads another stage (bench/RESULTS.md, 2026-11-27).
    // Where every reduction reads its rows in vectors (rfactor's row form:
    // softmax, layer norm over the last axis) or keeps independent vector
    // accumulators (its accumulators form: a global pool over NCHW16c), those too.
    if (std::all_of(s.plans.begin(), s.plans.end(), [&](const ss::StagePlan &p) {
          return p.kind != ss::PlanKind::Tiled &&
                 (!impl_->graph.stage(p.stage).is_reduction() ||
                  (p.kind == ss::PlanKind::RFactor && p.rf_form != ss::RFactorForm::FewPoints));
        }))
      keep(filled(impl_->graph, s, si));
    for (const auto &plan : s.plans) {
      if (plan.kind != ss::PlanKind::Tiled) continue;
      const std::string &S = plan.stage;
      const size_t before = out.size();
      // GEMM: packed panels of B, rows swept past them.
      GemmTiles g = gemm_tiles(s, S);
      if (g.rows && allows(s, S + ".cache_read", 3)) {
        // The block of 6 rows first: 6 x 64 on AVX-512 (4 vectors), 6 x 16 on
        // AVX2 (2 vectors, BLIS's Haswell sgemm block); each measured faster
        // than the other shape of its ISA (bench/RESULTS.md, 2026-11-27).
        std::vector<int64_t> vector_counts = {4, 2};
        if (max_register_block() / (2 * vector_lanes()) == 6) std::swap(vector_counts[0], vector_counts[1]);
        for (int64_t vectors : vector_counts) {
          const int64_t block_cols = vectors * vector_lanes(), block_rows = max_register_block() / block_cols;
          if (g.cols->extent % block_cols != 0 || g.rows->extent < block_rows) continue;
          // All rows in one outer tile (Goto's order: a task owns panels of B and sweeps
          // every row block past them), or in as few as balance the threads (gemm_row_tile_blocks);
          // rows at S1 (the accumulator computed per row block) or, K-blocked, at S2.
          auto rows_for = [&](int64_t col_tasks, bool k_blocked) {
            const int64_t blocks = gemm_row_tile_blocks(col_tasks, g.rows->extent, block_rows, impl_->graph.threads);
            return k_blocked ? std::vector<int64_t>{1, blocks, block_rows} : std::vector<int64_t>{blocks, 1, block_rows};
          };
          const int64_t bytes = impl_->graph.stage(S).tensor.dtype().bytes();
          auto keep_gemm = [&](const std::vector<int64_t> &rows, const std::vector<int64_t> &cols, int64_t reduce) {
            Candidate c = filled(impl_->graph, s, si);
            ss::set_tile(c, *g.rows, rows);
            ss::set_tile(c, *g.cols, cols);
            ss::set_tile(c, *g.reduce, {reduce});
            parallel_over_outer_tiles(s, impl_->graph.stage(S), c);
            for (auto [name, v] : std::vector<std::pair<std::string, int64_t>>{
                     {".cache_read", 3}, {".max_unroll", 64}, {".at_level", 1}})
              if (allows(s, S + name, v)) c.params[S + name] = v;
            keep(c);
          };
          // K blocks first where a row block's slice of A exceeds the L1 (k_block): the
          // accumulator computed at the task (S1 of one), its K blocks outermost, every row
          // block swept past the task's one panel per K block (S2), the block's k loop
          // unrolled by 4 (unroll_inner). BERT-base's and ViT-B/16's MLP down-projections
          // (K = 3072) ran 1.04-1.09x as fast alone as with the whole K per row block;
          // ConvNeXt-T's and Swin-T's (K = 1536) 1.28-1.32x in the model (bench/RESULTS.md,
          // 2026-12-06 thirty-seventh session).
          const int64_t kc = k_block(g.reduce->extent, block_rows * bytes);
          const std::vector<int64_t> rows_in_k_blocks = rows_for(g.cols->extent / block_cols, true);
          if (kc > 0 && ss::valid_tile(*g.rows, rows_in_k_blocks))
            keep_gemm(rows_in_k_blocks, {1, 1, block_cols}, kc);
          // A task's packed panels of B (K x block_cols each) stay in its core's L2 while
          // every row block sweeps them: 2 blocks first where both fit, else 1 first (ViT's
          // MLP down-projection, K = 3072: 2 x 64-column panels are 1.5 MB, 1.4-1.5x slower
          // than 1 on an Ice Lake Xeon of 1.25 MiB L2, bench/RESULTS.md, nineteenth session).
          const int64_t panel_bytes = g.reduce->extent * block_cols * bytes;
          const int64_t first = 2 * panel_bytes <= kL2Bytes ? 2 : 1;
          for (int64_t blocks_per_task : {first, 3 - first}) {
            if (g.cols->extent % (block_cols * blocks_per_task) != 0) continue;
            const std::vector<int64_t> rows = rows_for(g.cols->extent / (block_cols * blocks_per_task), false);
            if (!ss::valid_tile(*g.rows, rows)) continue;
            keep_gemm(rows, {blocks_per_task, 1, block_cols}, g.reduce->extent % kReduceUnroll == 0 ? kReduceUnroll : 1);
          }
        }
      }
      // Direct convolution: output-channel vectors x a block of output columns and rows.
      const TileSpec *chan = nullptr, *cols = nullptr, *rows = nullptr;
      for (const auto &t : s.tiles)
        if (t.stage == S && t.levels == 4) {
          if (t.channel_vector) chan = &t;
          else if (t.vec_axis) cols = &t;
          else if (chan) rows = &t;  // the last tiled axis between the channels and the columns
        }
      if (chan && allows(s, ss::vec_channel_param(S), 1) && chan->extent % ss::kMaxVector == 0) {
        for (const ConvBlock &b : conv_blocks(chan->extent, cols ? cols->extent : 1, rows ? rows->extent : 1, max_register_block())) {
          Candidate c = filled(impl_->graph, s, si);
          c.params[ss::vec_channel_param(S)] = 1;
          for (const auto &t : s.tiles)
            if (t.stage == S && t.levels == 4) ss::set_tile(c, t, {1, 1, 1});
          ss::set_tile(c, *chan, {1, 1, b.vectors});
          if (cols) ss::set_tile(c, *cols, {1, 1, b.cols});
          if (rows) ss::set_tile(c, *rows, {1, 1, b.rows});
          set_reduce_tiles(s, S, c, 1);
          parallel_over_outer_tiles(s, impl_->graph.stage(S), c);
          if (allows(s, S + ".at_level", 1)) c.params[S + ".at_level"] = 1;
          keep(c);
        }
      }
      // Spatial vector, where neither model above applies (depthwise convs,
      // 1x1 convs of odd channel counts, batched matmuls of activations): the
      // last axis in vectors, rows of the axis before it in registers. Also
      // first, before the conv model, where the reduction is at most one
      // vector long (a 1x1 conv of 16 input channels): there the conv
      // model's transposing store of each channel-vector tile outweighs its
      // few FMAs per output.
      const bool short_reduction = ss::reduce_extent(impl_->graph.stage(S)) <= ss::kMaxVector;
      if (cols && (out.size() == before || short_reduction)) {
        rows = nullptr;
        for (const auto &t : s.tiles)
          if (t.stage == S && t.levels == 4 && &t != cols) rows = &t;  // the last tiled axis before the vector one
        Candidate c = filled(impl_->graph, s, si);
        if (allows(s, ss::vec_channel_param(S), 0)) c.params[ss::vec_channel_param(S)] = 0;
        if (allows(s, S + ".cache_read", 0)) c.params[S + ".cache_read"] = 0;
        for (const auto &t : s.tiles)
          if (t.stage == S && t.levels == 4) ss::set_tile(c, t, {1, 1, 1});
        const int64_t width = vector_width(cols->extent, ss::kMaxVector);
        // A conv's output channels share each input load (a 1x1 conv of 24
        // or 40 channels): a few of them in registers, as the GEMM's rows.
        int64_t chans = weight_channels_in_registers(impl_->graph.stage(S), s, rows, max_register_block() / width, c);
        // Accumulators: 8 full vector registers; a blocked conv's, in blocks
        // of one vector, 14 of the 32 AVX-512 registers, so that 2 FMA ports
        // of latency 4 stay fed (Intel Xeon: 7-19% faster on 5 of 6 ResNet-50
        // and PP-OCR shapes, bench/RESULTS.md); never more than the target's
        // register block (12 of AVX2's 16).
        const StageInfo &st = impl_->graph.stage(S);
        const int64_t input_lanes = ss::blocked_input_lanes(st);  // 0: no blocked-channel reduction
        const bool blocked_conv = input_lanes > 0 && width == vector_lanes();
        const int64_t lanes = std::min(max_register_block(), (blocked_conv ? 14 : 8) * vector_lanes());
        int64_t row_block = rows ? rows_upto(rows->extent, std::max<int64_t>(1, lanes / width / chans)) : 1;
        // (the register block of a window over many input channels: 2 vectors of columns where they divide)
        const bool window_block = chans > 1 && input_lanes == 0 && window_over_many_channels(st);
        // An NCHW input read as NCHW1c (an image stem's 3 channels): each broadcast
        // input serves every output-channel block in the register block, as in a
        // 1x1 conv (ResNet-50's 7x7 stem tuned to 4 blocks x 4 columns).
        const bool narrow_input = blocked_conv && input_lanes == 1;
        const TileSpec *out_chans = blocked_conv && (ss::window_taps(st) == 1 || narrow_input)
                                        ? stage_tile(s, st, ss::blocked_output_channel_axis(st))
                                        : nullptr;
        bool chunked = false;
        if (rows && out_chans && out_chans != rows) {
          const int64_t bytes = st.tensor.dtype().bytes(), panel = ss::reduce_extent(st) * width * bytes;
          const TileSpec *image_rows = tile_before(s, S, rows, out_chans);  // a conv's output rows
          // A narrow input's taps are few per block (3x3x3, 7x7x3: 2-9 KB), and its
          // blocks share every load: no L1 bound on them, and no chunks.
          const ConvRegisterBlock pb =
              conv_register_block(out_chans->extent, rows->extent, 1, lanes / width, narrow_input ? 1 : panel, narrow_input);
          // Image rows where the whole weight exceeds kL2Bytes (ResNet-50's 7x7 convs, 4-8 MB:
          // up to 2x faster), and at any weight size where the register budget is AVX2's 12 and
          // each thread gets 2 blocks of 4 output-channel blocks (so that set_chunked_tiles keeps
          // every row in one outer tile): 1.06-1.25x the 1 x 7 block or guarded columns on 1x1
          // convs of 0.1-0.9 MB at 7x7 and 17x17; with fewer blocks, rows in tiles of 3 (9 for
          // 7) ran 0.79-0.87x (64 and 32 output channels at 7x7; Zen 3; bench/RESULTS.md,
          // twenty-seventh session).
          const bool weight_past_l2 = panel * out_chans->extent > kL2Bytes;
          const bool avx2_rows =  // (4: conv_register_block's widest block)
              lanes / width < 14 && groups_fill_threads(out_chans->extent / 4, impl_->graph.threads);
          // Without image rows, a width no column count divides (a prime one: Inception's 17) takes
          // guarded tiles of columns: as 2 blocks x 1 column, 768 -> 160 channels at 17x17 ran at
          // 166 GFLOP/s on AVX-512, as 2 x 6 at 405 (bench/RESULTS.md, twelfth session).
          const bool rows_of_image = image_rows && (weight_past_l2 || avx2_rows);
          const ConvRegisterBlock b = conv_register_block(out_chans->extent, rows->extent,
                                                          rows_of_image ? image_rows->extent : 1, lanes / width, 0);
          const std::optional<ConvRegisterBlock> l2b =
              narrow_input ? std::nullopt
                           : l2_panel_block(out_chans->extent, rows->extent, image_rows ? image_rows->extent : 1,
                                            max_register_block() / width, panel);
          // 1.2-1.5x on ResNet-50's 1x1 convs of 256-2048 input channels (bench/RESULTS.md, 2026-11-28).
          chunked = !narrow_input && !l2b && b.useful > pb.useful;
          if (chunked)
            set_chunked_tiles(s, S, b, *out_chans, *rows, image_rows, rows->extent * width * bytes, panel,
                              impl_->graph.threads, c);
          const ConvRegisterBlock &whole = l2b ? *l2b : pb;
          if (!chunked) ss::set_tile(c, *out_chans, {1, 1, whole.chans});
          if (l2b && l2b->rows > 1) ss::set_tile(c, *image_rows, {1, 1, l2b->rows});
          chans = chunked ? b.chans : whole.chans;
          row_block = chunked ? b.cols * b.rows : whole.cols;
        }
        // A blocked conv with a kernel window (a stride-2 3x3 conv, a 3x3 conv
        // run direct): 2 output-channel blocks x a row of 7 columns, each
        // broadcast input serving both blocks. 1.2-1.9x faster than 1 x 14 on
        // ResNet-50's stride-2 3x3 convs (Ice Lake Xeon; bench/RESULTS.md,
        // seventeenth session); 4 blocks x 7 spill the register file. Only
        // where the budget holds 2 x 7 (AVX-512's 14). AVX2's 12 keep 1 block:
        // there 2 x 5 ran no faster, up to 1.6x slower (Zen 3; 2026-12-05).
        // (window_axis: the output-channel axis of such a conv, also the AVX2 seeds' below)
        const TileSpec *window_axis = blocked_conv && !narrow_input && ss::window_taps(st) > 1
                                          ? stage_tile(s, st, ss::blocked_output_channel_axis(st))
                                          : nullptr;
        const TileSpec *window_chans = chans == 1 && lanes / width >= 14 ? window_axis : nullptr;
        if (rows && window_chans && window_chans != rows && window_chans->extent % 2 == 0) {
          ss::set_tile(c, *window_chans, {1, 1, 2});
          chans = 2;
          row_block = rows_upto(rows->extent, lanes / width / chans);
        }
        if (rows && !chunked) ss::set_tile(c, *rows, {1, 1, row_block});
        const int64_t tasks = std::max<int64_t>(1, impl_->graph.threads);
        // A task's column vectors: an equal share, rounded up where that still
        // fits the axis (1000 columns on 2 threads: 512 + a guarded 488).
        int64_t task_vectors = (cols->extent + width * tasks - 1) / (width * tasks);
        if (task_vectors * width > cols->extent) task_vectors = cols->extent / width;
        const bool gemv = row_block * chans == 1 && width == ss::kMaxVector && task_vectors >= 1 &&
                          ss::reduce_extent(impl_->graph.stage(S)) >= kGemvReduce &&
                          ss::columns_contiguous(impl_->graph.stage(S));
        if (gemv) {
          // A GEMV (one row: an LSTM cell's recurrence, a classifier): the
          // reduction outermost and a task's columns inside it, so that the
          // weight streams row by row, contiguous, while the accumulators stay
          // in L1. (Column strips down the reduction step a row each, one
          // cache line per page: no prefetch; a 1280x1000 classifier read its
          // 5 MB weight at 13 GB/s so.)
          ss::set_tile(c, *cols, {1, task_vectors, width});
          set_reduce_tiles(s, S, c, 1);
        } else if (input_lanes > 0) {
          // A blocked conv reads its weight [.., R, S, b_in, b_out] in order when
          // the input-channel block (16) and the taps stay whole under each
          // outer channel block: kReduceUnroll's splits interleaved the blocks,
          // and a 3x3 conv of 512 channels at 7x7 ran 1.7x slower in a model,
          // whose weights come from DRAM, than alone.
          // Where output-channel blocks share the register block, the
          // input-channel block goes outside them instead, so that each
          // broadcast input serves all of them.
          ss::set_tile(c, *cols, {1, 1, width * column_vectors(cols->extent, width, row_block * chans)});
          for (const auto &t : s.tiles)
            if (t.stage == S && t.levels == 2 && !chunked)  // (set_chunked_tiles chunks them)
              ss::set_tile(c, t, {t.extent <= ss::kMaxVector && chans == 1 ? t.extent : 1});
        } else {
          ss::set_tile(c, *cols, {1, 1, width * column_vectors(cols->extent, width, row_block * chans,
                                                               window_block ? kWindowBlockVectors : 8)});
          set_reduce_tiles(s, S, c, kReduceUnroll);
        }
        parallel_over_outer_tiles(s, impl_->graph.stage(S), c);
        if (allows(s, S + ".at_level", 1)) c.params[S + ".at_level"] = 1;
        // A GEMV's accumulator copy (a task's columns, in L1) goes first: its
        // epilogue then runs inside the same parallel task (LSTM cell, 2
        // threads: 13 against 17 us). So does a blocked register block's (a 1x1
        // conv's, the Winograd GEMM's): written back once after its reduction,
        // not loaded and stored around each step of it (the GEMM of 32
        // channels on 5476 tiles: 1.12 against 0.83 ms). So does a stage in
        // plain layout reducing across a vector or more of channels or K
        // besides its window's taps (kCrossReduce): a batched matmul of
        // activations, an NCHW conv of odd output channels.
        const bool across = input_lanes == 0 && ss::reduce_extent(st) / ss::window_taps(st) >= kCrossReduce;
        const bool preferred = gemv || out_chans || across ? plan.cache_write : !plan.cache_write;
        const int spatial_rank = out.size() != before ? -1 : preferred ? 1 : 2;
        // A blocked conv with a kernel window in one output-channel block (AVX2's), first of
        // all: 4 output-channel blocks x 2 columns with each tap's input lanes innermost
        // (lanes_last_param), so that every tap runs a 1x1 conv's register block (8
        // accumulators, each broadcast input serving 4 weight vectors) instead of 7
        // accumulators fed one weight vector with the taps unrolled over them. Alone, 1.13x
        // and 1.29x on ResNet-50's stride-2 3x3 convs of 256 and 128 channels, 1.11-2.2x on
        // 3x3 and 5x5 convs run direct (180-193 GFLOP/s of 202); with 7 columns in guarded
        // tiles of 2, 0.7x. Wider blocks with the taps unrolled spilled registers; 2 rows x 7
        // columns of one block, lanes last (14 accumulators, no spill), ran 0.95x (Zen 3;
        // bench/RESULTS.md, twenty-sixth session).
        // An odd width (7) takes 2 image rows instead, the last pair guarded, every row in one
        // outer tile: 1.18-1.21x the chunked 1 x 7 below on ResNet-50's 512-channel 3x3 convs
        // at 7x7, stride 2 and 1. Only where the output-channel blocks give each thread 2
        // tasks: DenseNet's 128 -> 32 channels at 7x7 (one task) ran 0.88x with its rows in
        // 4 parallel tiles (Zen 3; bench/RESULTS.md, twenty-seventh session).
        const TileSpec *window_out = chans == 1 && rows ? window_axis : nullptr;
        const std::string lanes_last = ss::lanes_last_param(S);
        const TileSpec *pair_rows = window_out && rows->extent % 2 != 0 ? tile_before(s, S, rows, window_out) : nullptr;
        const bool pairs_fit = pair_rows && pair_rows->extent > 2 &&
                               groups_fill_threads(window_out->extent / kQuadBlocks, impl_->graph.threads);
        if (window_out && window_out != rows && window_out->extent % kQuadBlocks == 0 &&
            (rows->extent % 2 == 0 || pairs_fit) && allows(s, lanes_last, 1)) {
          Candidate quad = c;
          quad.params[lanes_last] = 1;
          ss::set_tile(quad, *window_out, {1, 1, kQuadBlocks});
          if (pair_rows) {
            ss::set_tile(quad, *rows, {1, rows->extent, 1});
            ss::set_tile(quad, *pair_rows, {1, (pair_rows->extent + 1) / 2, 2});
          } else {
            ss::set_tile(quad, *rows, {1, rows->extent / 2, 2});
          }
          // The outer input-channel blocks one at a time around the column sweep (R0), so that
          // their 4 blocks' weights (9 taps: 9 KiB) stay in L1; the taps and lanes inside (R1).
          // (window_out implies blocked_conv: the lanes axis exists.)
          std::set<std::string> inner = ss::window_tap_axes(st);
          inner.insert(st.reduce_axes[ss::blocked_lanes_reduce_axis(st)].var.name());
          for (const auto &t : s.tiles)
            if (t.stage == S && t.levels == 2) ss::set_tile(quad, t, {inner.count(t.axis) ? t.extent : 1});
          parallel_over_outer_tiles(s, st, quad);
          keep(quad, spatial_rank);
        }
        // Then, where its input channels are more than a vector of blocks and the register
        // block divides its columns: the 1 x 7 block with its input channels in chunks whose
        // weights stay in L1 while each chunk sweeps the output (set_chunked_tiles);
        // whole, each 7-column tile read its block's 73-147 KiB of weights from L2.
        // 1.10-1.11x on ResNet-50's stride-2 3x3 convs of 256 and 512 channels, 1.02-1.05x
        // on its 3x3 convs run direct at 14x14 and 7x7; with guarded columns (28 in
        // tiles of 10, 192 channels) 0.93x (Zen 3; bench/RESULTS.md, twenty-fifth session).
        const bool long_reduction = std::any_of(s.tiles.begin(), s.tiles.end(), [&](const TileSpec &t) {
          return t.stage == S && t.levels == 2 && t.extent > ss::kMaxVector;
        });
        if (window_out && window_out != rows && long_reduction && rows->extent % row_block == 0) {
          const TileSpec *image_rows = tile_before(s, S, rows, window_out);
          const int64_t bytes = st.tensor.dtype().bytes();
          Candidate chunks = c;
          set_chunked_tiles(s, S, ConvRegisterBlock{1, row_block, 1, 0}, *window_out, *rows, image_rows,
                            rows->extent * width * bytes, ss::reduce_extent(st) * width * bytes, impl_->graph.threads,
                            chunks);
          parallel_over_outer_tiles(s, st, chunks);
          keep(chunks, spatial_rank);
        }
        keep(c, spatial_rank);
      }
    }
  }
  // The models in order (GEMM and convolution before spatial vector), and a
  // spatial-vector seed on the stage alone or with its fused consumer before
  // one with a cache_write: on depthwise convs the accumulator copy ran 3-4x
  // slower.
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank[a] < rank[b]; });
  std::vector<Candidate> sorted;
  for (size_t i : order) sorted.push_back(out[i]);
  return sorted;
}

}  // namespace autotune
}  // namespace tetune
