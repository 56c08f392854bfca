// Conv2d as im2col + OpenBLAS cblas_sgemm (NCHW, OIHW).
//   col[(c*R + r)*S + q][oh*OW + ow] = in[n][c][oh*st + r - pad][ow*st + q - pad] (0 outside)
//   out[n] (K x OH*OW) = W (K x C*R*S) * col (C*R*S x OH*OW)
// The timed call includes im2col (parallelised over input channels with
// OpenMP, `threads` threads) and the sgemm (OpenBLAS, `threads` threads).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "bench/baselines/baselines.h"

namespace tetune {
namespace bench {

static void im2col(const BenchSpec &s, const float *in, float *col, int threads) {
  const int64_t OH = s.out_h(), OW = s.out_w();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t c = 0; c < s.in_c; ++c) {
    const float *plane = in + c * s.in_h * s.in_w;
    for (int64_t r = 0; r < s.kh; ++r) {
      for (int64_t q = 0; q < s.kw; ++q) {
        float *dst = col + ((c * s.kh + r) * s.kw + q) * OH * OW;
        for (int64_t oh = 0; oh < OH; ++oh) {
          const int64_t ih = oh * s.stride + r - s.pad;
          float *row = dst + oh * OW;
          if (ih < 0 || ih >= s.in_h) {
            std::fill(row, row + OW, 0.0f);
            continue;
          }
          const float *src = plane + ih * s.in_w;
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t iw = ow * s.stride + q - s.pad;
            row[ow] = (iw >= 0 && iw < s.in_w) ? src[iw] : 0.0f;
          }
        }
      }
    }
  }
}

BenchResult openblas_conv(const BenchSpec &s, int threads) {
  openblas_set_num_threads(threads);
  const BenchData &d = bench_data(s);
  const int64_t OH = s.out_h(), OW = s.out_w();
  const int64_t crs = s.in_c * s.kh * s.kw;
  std::vector<float> col(crs * OH * OW);
  std::vector<float> out(s.output_elems());
  auto run = [&] {
    for (int64_t n = 0; n < s.batch; ++n) {
      im2col(s, d.input0.data() + n * s.in_c * s.in_h * s.in_w, col.data(), threads);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.out_c, OH * OW, crs, 1.0f,
                  d.input1.data(), crs, col.data(), OH * OW, 0.0f,
                  out.data() + n * s.out_c * OH * OW, OH * OW);
    }
  };
  return check_and_time(s, "openblas", threads, run, out.data(),
                        "im2col (timed) + cblas_sgemm");
}

}  // namespace bench
}  // namespace tetune
