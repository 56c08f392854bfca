// SearchSpace::seeds(): candidates from an analytical model of GEMM blocking
// (Low, Igual, Smith and Quintana-Orti, "Analytical Modeling Is Enough for
// High-Performance BLIS", ACM TOMS 43(2), 2016, sections 3-4), placed in the
// same parameters the random annotation draws, so that the search measures
// them first and evolves from them.
//
// The model, for a multi-level tiled stage with two tiled spatial axes (rows,
// and the vector axis: columns) and a packable reused input (B):
//  - register block (their m_r x n_r): n vectors of columns and as many rows
//    as fill kMaxRegisterBlock (24 accumulators: 4 x 16 columns x 6 rows, or
//    2 x 16 x 12), with the reduction unrolled by 4 inside it;
//  - rows (m_c): all of them in one outer tile, the row blocks swept past
//    one packed panel of B (the last block shifted inwards when r does not
//    divide the rows);
//  - columns (n_c): a parallel task holds 1 or 2 register-block widths,
//    packed at root in panels as wide as the block (cache_read choice 3), so
//    a task streams K x n_r contiguous elements of B, from L2.
// The model fixes structure, not exact sizes: the search then moves factors,
// and measurement decides.
#include <algorithm>

#include "autotune/search_space/search_space.h"
#include "autotune/search_space/search_space_internal.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {

using ss::Sketch;
using ss::TileSpec;

namespace {

constexpr int64_t kReduceUnroll = 4;

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

}  // namespace

std::vector<Candidate> SearchSpace::seeds() const {
  std::vector<Candidate> out;
  for (int si = 0; si < num_sketches(); si++) {
    const Sketch &s = impl_->sketches[si];
    for (const auto &plan : s.plans) {
      const std::string &S = plan.stage;
      GemmTiles g = gemm_tiles(s, S);
      if (!g.rows || !allows(s, S + ".cache_read", 3)) continue;
      for (int64_t vectors : {4, 2}) {
        const int64_t block_cols = vectors * ss::kMaxVector, block_rows = kMaxRegisterBlock / block_cols;
        if (g.cols->extent % block_cols != 0 || g.rows->extent < block_rows) continue;
        const std::vector<int64_t> row_levels = {(g.rows->extent + block_rows - 1) / block_rows, 1, block_rows};
        if (!ss::valid_tile(*g.rows, row_levels)) continue;
        for (int64_t blocks_per_task : {2, 1}) {
          if (g.cols->extent % (block_cols * blocks_per_task) != 0) continue;
          // Deterministic draws for what the model does not set (other stages' tiles and locations).
          std::mt19937_64 rng(0);
          Candidate c;
          c.sketch = si;
          for (const auto &t : s.tiles) ss::set_tile(c, t, ss::sample_tile(t, rng));
          for (const auto &ch : s.choices) c.params[ch.name] = ch.values.front();
          ss::set_tile(c, *g.rows, row_levels);
          ss::set_tile(c, *g.cols, {blocks_per_task, 1, block_cols});
          ss::set_tile(c, *g.reduce, {g.reduce->extent % kReduceUnroll == 0 ? kReduceUnroll : 1});
          // Panels as wide as the block; rows x column tasks in parallel.
          for (auto [name, v] : std::vector<std::pair<std::string, int64_t>>{
                   {".cache_read", 3}, {".max_unroll", 64}, {".parallel", 2}, {".par_grain", 16}, {".at_level", 1}})
            if (allows(s, S + name, v)) c.params[S + name] = v;
          if (register_block(c) > kMaxRegisterBlock) continue;
          try {
            schedule(c);
          } catch (const Error &) {
            continue;  // the model's point is not in this sketch (a guard it cannot take)
          }
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

}  // namespace autotune
}  // namespace tetune
