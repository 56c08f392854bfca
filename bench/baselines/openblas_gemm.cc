// OpenBLAS cblas_sgemm, row-major. Debian's libopenblas is the pthreads
// variant; threads via OPENBLAS_NUM_THREADS (child env) and
// openblas_set_num_threads.
#include <cblas.h>

#include <vector>

#include "bench/baselines/baselines.h"

namespace tetune {
namespace bench {

BenchResult openblas_gemm(const BenchSpec &s, int threads) {
  openblas_set_num_threads(threads);
  const BenchData &d = bench_data(s);
  std::vector<float> c(s.output_elems());
  const float *a = d.input0.data();
  const float *b = d.input1.data();
  float *cp = c.data();
  auto run = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.M, s.N, s.K, 1.0f, a, s.K, b, s.N,
                0.0f, cp, s.N);
  };
  std::string note = std::string("cblas_sgemm, core ") + openblas_get_corename();
  return check_and_time(s, "openblas", threads, run, cp, note);
}

}  // namespace bench
}  // namespace tetune
