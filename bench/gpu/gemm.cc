// cuBLAS SGEMM baseline vs the tetune CUDA GEMM schedules (Halide JIT, CUDA target), N^3 (default 4096).
// Without an NVIDIA driver/GPU it says so and exits 0.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu/gpu_bench_util.h"
#include "schedules/gpu_schedules.h"
#include "codegen/kernel.h"
#include "schedule/trace.h"

// The few CUDA runtime / cuBLAS entry points used (stable C ABI; avoids toolkit headers in the build).
extern "C" {
typedef struct CUevent_st *cudaEvent_t;
typedef struct cublasContext *cublasHandle_t;
int cudaGetDeviceCount(int *);
int cudaMalloc(void **, size_t);
int cudaFree(void *);
int cudaMemcpy(void *, const void *, size_t, int);
int cudaDeviceSynchronize(void);
int cudaEventCreate(cudaEvent_t *);
int cudaEventRecord(cudaEvent_t, void *);
int cudaEventSynchronize(cudaEvent_t);
int cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
int cublasCreate_v2(cublasHandle_t *);
int cublasDestroy_v2(cublasHandle_t);
int cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int,
                   const float *, float *, int);
}

namespace {
constexpr int kHostToDevice = 1;
constexpr int kDeviceToHost = 2;
constexpr int kOpN = 0;


// cuBLAS time per GEMM (ms, CUDA events); its product (row-major) goes to c.
double cublas_ms(int n, const std::vector<float> &a, const std::vector<float> &b, int repeat, std::vector<float> &c) {
  size_t bytes = size_t(n) * n * sizeof(float);
  float *da, *db, *dc;
  GPU_BENCH_CHECK(cudaMalloc(reinterpret_cast<void **>(&da), bytes));
  GPU_BENCH_CHECK(cudaMalloc(reinterpret_cast<void **>(&db), bytes));
  GPU_BENCH_CHECK(cudaMalloc(reinterpret_cast<void **>(&dc), bytes));
  GPU_BENCH_CHECK(cudaMemcpy(da, a.data(), bytes, kHostToDevice));
  GPU_BENCH_CHECK(cudaMemcpy(db, b.data(), bytes, kHostToDevice));
  cublasHandle_t h;
  GPU_BENCH_CHECK(cublasCreate_v2(&h));
  const float one = 1.f, zero = 0.f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto gemm = [&] { GPU_BENCH_CHECK(cublasSgemm_v2(h, kOpN, kOpN, n, n, n, &one, db, n, da, n, &zero, dc, n)); };
  gemm();
  GPU_BENCH_CHECK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  GPU_BENCH_CHECK(cudaEventCreate(&t0));
  GPU_BENCH_CHECK(cudaEventCreate(&t1));
  GPU_BENCH_CHECK(cudaEventRecord(t0, nullptr));
  for (int i = 0; i < repeat; i++) gemm();
  GPU_BENCH_CHECK(cudaEventRecord(t1, nullptr));
  GPU_BENCH_CHECK(cudaEventSynchronize(t1));
  float ms = 0;
  GPU_BENCH_CHECK(cudaEventElapsedTime(&ms, t0, t1));
  c.resize(size_t(n) * n);
  GPU_BENCH_CHECK(cudaMemcpy(c.data(), dc, bytes, kDeviceToHost));
  cublasDestroy_v2(h);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return ms / repeat;
}
}  // namespace

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  if (tetune::gpu_bench::no_gpu("bench/gpu/gemm", cudaGetDeviceCount)) return 0;
  tetune::NDArray A = tetune::NDArray::random({n, n}, tetune::float32(), 1);
  tetune::NDArray B = tetune::NDArray::random({n, n}, tetune::float32(), 2);
  std::vector<float> a(A.data<float>(), A.data<float>() + size_t(n) * n), b(B.data<float>(), B.data<float>() + size_t(n) * n);
  double flops = 2.0 * n * n * double(n);
  std::vector<float> c_cublas;
  double cb = cublas_ms(n, a, b, 20, c_cublas);

  tetune::Tensor Ap = tetune::placeholder({n, n}, tetune::float32(), "A");
  tetune::Tensor Bp = tetune::placeholder({n, n}, tetune::float32(), "B");
  tetune::IterVar k = tetune::reduce_axis(n, "k");
  tetune::Tensor C = tetune::compute({n, n}, [&](const std::vector<tetune::Var> &i) {
    return tetune::sum(Ap(i[0], k.var) * Bp(k.var, i[1]), {k});
  }, "C", "matmul", {"i", "j"});
  tetune::NDArray ref({n, n}, tetune::float32());  // cuBLAS's product, the reference of every tetune row
  std::copy(c_cublas.begin(), c_cublas.end(), ref.data<float>());
  std::printf("SGEMM %d^3\n", n);
  std::printf("  %-34s %9.3f ms  %8.1f GFLOP/s (CUDA events)\n", "cuBLAS", cb, flops / cb / 1e6);
  // Each tetune schedule: device-resident runs, each followed by a sync (Kernel::median_ms on a GPU target);
  // its product must agree with cuBLAS's (scaled by max |C|) before its time is shown.
  int bad = 0;
  auto row = [&](const std::string &name, const tetune::Schedule &s) {
    tetune::Kernel kern = tetune::Kernel::build(s, tetune::Target{"cuda"});
    std::vector<tetune::NDArray> out = {tetune::NDArray({n, n}, tetune::float32())};
    double tt = kern.median_ms({A, B}, out, 2, 20);
    const double err = tetune::scaled_max_error(out[0], ref);
    if (!(err <= 1e-4)) {
      std::printf("  %-34s differs from cuBLAS (max |diff| / max |C| = %.2e): no time\n", name.c_str(), err);
      bad++;
      return;
    }
    std::printf("  %-34s %9.3f ms  %8.1f GFLOP/s (wall clock, synced)  %.3fx cuBLAS  (max diff %.1e)\n", name.c_str(),
                tt, flops / tt / 1e6, cb / tt, err);
  };
  row("tetune gpu_gemm_schedule", tetune::gpu_gemm_schedule(C));
  row("tetune gpu_gemm_register_schedule", tetune::gpu_gemm_register_schedule(C));
  tetune::GpuGemmRegisterTiles unstaged;  // the earlier hand tiles: 8 x 4 per thread, 16 x 16 threads, no staging
  unstaged.tile_i = 8, unstaged.threads_i = 16, unstaged.stage = false;
  row("tetune register, 8x4, 16x16, unstaged", tetune::gpu_gemm_register_schedule(C, unstaged));
  if (argc > 2) {  // a schedule trace, e.g. the one `tetune tune-op --target cuda` printed
    std::ifstream f(argv[2]);
    std::stringstream json;
    json << f.rdbuf();
    if (!f) {
      std::fprintf(stderr, "bench/gpu/gemm: cannot read schedule file '%s'\n", argv[2]);
      return 1;
    }
    row(std::string("tetune ") + argv[2], tetune::replay({C}, tetune::trace_from_json(json.str(), {C})));
  }
  return bad ? 1 : 0;
}
