// oneDNN dnnl_sgemm (row-major C = A * B). Debian's oneDNN 2.6 uses the
// OpenMP runtime (DNNL_CPU_RUNTIME == OMP, libgomp), so the thread count is
// OMP_NUM_THREADS (set by the parent for the child) and omp_set_num_threads.
#include <omp.h>

#include <vector>

#include "bench/baselines/baselines.h"
#include "oneapi/dnnl/dnnl.h"

namespace tetune {
namespace bench {

BenchResult onednn_gemm(const BenchSpec &s, int threads) {
  omp_set_num_threads(threads);
  const BenchData &d = bench_data(s);
  std::vector<float> c(s.output_elems());
  const float *a = d.input0.data();
  const float *b = d.input1.data();
  float *cp = c.data();
  auto run = [&] {
    dnnl_status_t st =
        dnnl_sgemm('N', 'N', s.M, s.N, s.K, 1.0f, a, s.K, b, s.N, 0.0f, cp, s.N);
    if (st != dnnl_success) throw tetune::RuntimeError("dnnl_sgemm failed with status " + std::to_string(st));
  };
  const dnnl_version_t *v = dnnl_version();
  std::string note = "dnnl_sgemm, oneDNN " + std::to_string(v->major) + "." +
                     std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
                     (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "non-OMP") + ")";
  return check_and_time(s, "onednn", threads, run, cp, note);
}

}  // namespace bench
}  // namespace tetune
