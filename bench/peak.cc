// bazel run //bench:peak [-- --threads 2 --rounds 5]
//
// The machine's measured fp32 FMA peak in GFLOP/s: the roof that the kernel
// rows of //bench:kernels are judged against (a GEMM at 95% of this is close
// to done; a goal above it cannot be met). Each thread runs independent
// chains of vector FMAs on registers (no memory traffic), enough to cover
// the FMA latency x throughput of current x86 cores (4 cycles x 2 ports = 8
// chains in flight): 16 on AVX-512, 12 on AVX2, whose 16 registers must also
// hold the two operands (16 chains there spilled, and Zen 3 measured 115
// GFLOP/s at 2 threads, below its GEMMs' 183). One FMA counts 2 flops per
// lane. Prints the median and the best of the rounds, per thread count from 1
// to --threads.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
inline Vec splat(float x) { return _mm512_set1_ps(x); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline float first(Vec v) { return _mm512_cvtss_f32(v); }
const char *kIsa = "AVX-512";
constexpr int kChains = 16;
#elif defined(__FMA__)
using Vec = __m256;
constexpr int kLanes = 8;
inline Vec splat(float x) { return _mm256_set1_ps(x); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline float first(Vec v) { return _mm256_cvtss_f32(v); }
const char *kIsa = "AVX2+FMA";
constexpr int kChains = 12;
#else
#error "bench:peak needs FMA (build with -march=native on x86-64)"
#endif

// Runs iters x kChains FMAs; returns a value that depends on all of them so
// that the compiler keeps the loop.
float fma_chains(long iters) {
  Vec acc[kChains];
  for (int c = 0; c < kChains; c++) acc[c] = splat(0.001f * c);
  const Vec a = splat(0.999999f), b = splat(1e-7f);
  for (long i = 0; i < iters; i++) {
    // Fully unrolled, so that the chains live in registers.
#pragma GCC unroll 16
    for (int c = 0; c < kChains; c++) acc[c] = fma(acc[c], a, b);
  }
  float s = 0;
  for (int c = 0; c < kChains; c++) s += first(acc[c]);
  return s;
}

// GFLOP/s of `threads` threads each running fma_chains(iters) at once.
double measure(int threads, long iters) {
  std::vector<std::thread> pool;
  std::vector<float> sink(threads);
  auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; t++) pool.emplace_back([&, t] { sink[t] = fma_chains(iters); });
  for (auto &th : pool) th.join();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (sink[0] == 12345.0f) std::printf(" ");  // keeps sink alive
  return 2.0 * kLanes * kChains * static_cast<double>(iters) * threads / s / 1e9;
}

}  // namespace

int main(int argc, char **argv) {
  int max_threads = 2, rounds = 5;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if ((a == "--threads" || a == "--rounds") && i + 1 < argc) {
      int v = std::atoi(argv[++i]);
      if (v < 1) {
        std::fprintf(stderr, "peak: %s must be >= 1\n", a.c_str());
        return 2;
      }
      (a == "--threads" ? max_threads : rounds) = v;
    } else {
      std::fprintf(stderr, "usage: peak [--threads T] [--rounds R]\n");
      return 2;
    }
  }
  const long iters = 50'000'000;  // about 0.2 s per round on a 3 GHz AVX-512 core
  std::printf("fp32 FMA peak, %s, %d chains per thread, %d rounds\n", kIsa, kChains, rounds);
  std::printf("%8s %14s %14s %14s\n", "threads", "median GF/s", "best GF/s", "per thread");
  for (int t = 1; t <= max_threads; t++) {
    std::vector<double> g;
    for (int r = 0; r < rounds; r++) g.push_back(measure(t, iters));
    std::sort(g.begin(), g.end());
    double med = g[g.size() / 2];
    std::printf("%8d %14.1f %14.1f %14.1f\n", t, med, g.back(), med / t);
  }
  return 0;
}
