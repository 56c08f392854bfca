// Side-by-side kernel benchmark harness (bazel run //bench:kernels).
//
// The harness owns: the benchmark specs (GEMM 1024^3, GEMM 2048^3, one 3x3
// conv), their deterministic random inputs, the plain reference loops, the
// correctness check, the timing (median of repeats), the impl registry, the
// result table and the JSONL output. Implementations ("impls") live in their
// own files and register themselves, see TETUNE_BENCH_REGISTER_IMPL below and
// bench/README.md ("Adding tetune rows").
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "base/errors.h"

namespace tetune {
namespace bench {

/** Which kind of kernel a BenchSpec describes. */
enum class BenchKind { kGemm, kConv2d };

/**
 * One benchmark problem. All tensors are fp32, dense, row-major / NCHW.
 *
 * GEMM:   C[M][N] = A[M][K] * B[K][N]                    (all row-major)
 * Conv2d: out[N][K][OH][OW] = sum_{c,r,s} in[N][C][oh*stride+r-pad][ow*stride+s-pad]
 *                                         * w[K][C][R][S]  (NCHW, OIHW, zero pad)
 */
struct BenchSpec {
  std::string name;  // e.g. "gemm1024", "conv3x3_c64_56"
  BenchKind kind = BenchKind::kGemm;
  // GEMM sizes.
  int64_t M = 0, N = 0, K = 0;
  // Conv2d sizes (N is shared with GEMM's N field name, so conv uses `batch`).
  int64_t batch = 0, in_c = 0, in_h = 0, in_w = 0, out_c = 0, kh = 0, kw = 0,
          stride = 1, pad = 0;

  int64_t out_h() const { return (in_h + 2 * pad - kh) / stride + 1; }
  int64_t out_w() const { return (in_w + 2 * pad - kw) / stride + 1; }
  /** Element counts of the two inputs (A/in, B/weights) and the output. */
  int64_t input0_elems() const;
  int64_t input1_elems() const;
  int64_t output_elems() const;
  /** Length of the reduction (K for GEMM, C*R*S for conv). */
  int64_t reduction_len() const;
  /** Useful floating point operations (2 per multiply-add). */
  double flops() const;
  /** Human-readable shape, e.g. "1024x1024x1024". */
  std::string shape_string() const;
};

/** All benchmark problems, in table order. */
const std::vector<BenchSpec> &all_specs();

/** One row of the result table / one JSON line. */
struct BenchResult {
  std::string bench, impl;
  int threads = 0;
  double median_ms = 0, gflops = 0;
  std::string note;
  // --- fields beyond the basic record ---
  double max_abs_err = -1;  // vs the reference loop; -1 = not checked
  int repeats = 0;          // timed repeats (summed over --rounds in the final rows)
  double best_ms = 0;       // min over --rounds of the per-round medians (0 = n/a)
  std::string error;        // non-empty: this is an error row (no time)
  bool ok() const { return error.empty(); }
};

/**
 * The plug-in point. An impl runs one BenchSpec at a given thread count and
 * returns one BenchResult. It normally builds its kernel, then calls
 * check_and_time() below, which checks the output against the reference loop
 * and times it. It may throw (any std::exception): the harness turns that into
 * an error row. To say "this impl does not cover this bench", throw
 * Unsupported; the row is then left out of the table.
 */
using ImplFn = std::function<BenchResult(const BenchSpec &, int threads)>;

/** Thrown by an impl for a BenchSpec it does not implement (row omitted). */
class Unsupported : public tetune::Error { using Error::Error; };

/** A registered impl. `order` sorts impls in the table (low first). */
struct ImplEntry {
  std::string name;
  ImplFn fn;
  int order = 100;
};

/**
 * Registers an impl under `name` (e.g. "tetune-hand", "tetune-tuned").
 * Names starting with "tetune" are the reference of the ratio column.
 * Returns true so it can initialise a static. Duplicate names throw.
 */
bool register_impl(const std::string &name, ImplFn fn, int order = 100);

/** All registered impls, sorted by (order, name). */
std::vector<ImplEntry> registered_impls();

/**
 * Static registration from any .cc linked into //bench:kernels (the library
 * holding it must be alwayslink = 1, or be listed in the binary's srcs):
 *
 *   TETUNE_BENCH_REGISTER_IMPL("tetune-tuned", my_impl_fn);
 *   TETUNE_BENCH_REGISTER_IMPL_ORDERED("tetune-hand", my_fn, 10);
 */
#define TETUNE_BENCH_CONCAT2(a, b) a##b
#define TETUNE_BENCH_CONCAT(a, b) TETUNE_BENCH_CONCAT2(a, b)
#define TETUNE_BENCH_REGISTER_IMPL_ORDERED(name, fn, order)                     \
  static const bool TETUNE_BENCH_CONCAT(tetune_bench_registered_, __LINE__) = \
      ::tetune::bench::register_impl((name), (fn), (order))
#define TETUNE_BENCH_REGISTER_IMPL(name, fn) \
  TETUNE_BENCH_REGISTER_IMPL_ORDERED(name, fn, 100)

// ---------------------------------------------------------------------------
// Inputs and reference.

/**
 * Deterministic inputs for a spec (uniform in [-1, 1), fixed seeds) and the
 * reference output computed by a plain loop with double accumulation.
 * input0 = A (GEMM) or the NCHW input (conv); input1 = B or OIHW weights.
 * Built lazily once per process; the reference may come from the per-run
 * cache directory the parent process fills (see set_reference_cache_dir).
 */
struct BenchData {
  std::vector<float> input0, input1;
  std::vector<float> reference;
};
const BenchData &bench_data(const BenchSpec &spec);

/** Plain reference loops (double accumulation). `out` has output_elems(). */
void reference_gemm(const BenchSpec &spec, const float *a, const float *b, float *out);
void reference_conv2d(const BenchSpec &spec, const float *in, const float *w, float *out);

/** If set, bench_data() reads/writes "<dir>/<bench>.ref" (raw fp32). */
void set_reference_cache_dir(const std::string &dir);

/** Absolute tolerance of the correctness check: 1e-5 * reduction_len(). */
double tolerance_for(const BenchSpec &spec);

// ---------------------------------------------------------------------------
// Timing and checking.

/** Median over `repeats` runs of fn (after `warmup` untimed runs), in ms. */
double median_ms_of(std::function<void()> fn, int warmup, int repeats);

/** Picks repeats so repeats * one_ms ~= target_s (clamped to [5, 200];
 *  at least 3 instead of 5 when one call takes over 0.3 s). */
int repeats_for(double one_ms, double target_s = 1.5);

/**
 * The standard impl epilogue:
 *  1. fills the output with NaN via `poison_output` (if given),
 *  2. calls run() once, copies the result to plain layout with
 *     read_output(dst) (dst has spec.output_elems() floats, row-major/NCHW),
 *  3. compares with the reference: max abs error > tolerance_for(spec) gives
 *     an error row (no timing),
 *  4. otherwise warms up (>= 1 more call, ~0.2 s), picks repeats (~1.5 s
 *     total, see repeats_for) and returns the median.
 * Only run() is timed; read_output and poisoning are not.
 */
BenchResult check_and_time(const BenchSpec &spec, const std::string &impl, int threads,
                           const std::function<void()> &run,
                           const std::function<void(float *dst)> &read_output,
                           const std::function<void()> &poison_output = nullptr,
                           const std::string &note = "");

/** Convenience overload: run() writes the plain-layout output to `out`. */
BenchResult check_and_time(const BenchSpec &spec, const std::string &impl, int threads,
                           const std::function<void()> &run, float *out,
                           const std::string &note = "");

// ---------------------------------------------------------------------------
// Output.

/** One JSON object (one line, no newline) for a result. */
std::string to_json(const BenchResult &r, const std::string &run_id = "");
/** Parses a line produced by to_json. Throws tetune::ParseError. */
BenchResult from_json(const std::string &line);

/** Appends results as JSON lines to `path` (creating directories). */
void append_jsonl(const std::string &path, const std::vector<BenchResult> &results,
                  const std::string &run_id);

/**
 * Prints the table. Ratio = median_ms / base, where base (per bench and thread
 * count) is the best "tetune*" row, or the "onednn" row when no tetune rows
 * exist. Error rows print the error instead of a time.
 */
void print_table(const std::vector<BenchResult> &results, std::FILE *out = stdout);

}  // namespace bench
}  // namespace tetune
