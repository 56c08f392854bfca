#include "base/reread_speedup.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "base/cache_lines.h"

namespace tetune {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kRounds = 5;

// Times read_lines over [p, p + bytes); the sink keeps its sum.
double read_ms(const unsigned char *p, int64_t bytes) {
  const auto t0 = Clock::now();
  const unsigned sum = read_lines(p, bytes);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  static volatile unsigned sink = 0;
  sink = sink + sum;
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double measure(int64_t bytes) {
  std::unique_ptr<unsigned char[]> buf(new (std::nothrow) unsigned char[bytes]);
  if (!buf) return 1.0;  // no memory to measure with: counted as from memory, the state that times weights flushed
  std::fill(buf.get(), buf.get() + bytes, 1);  // touches every page before timing
  std::vector<double> again, flushed;
  for (int r = 0; r < kRounds; r++) {
    read_ms(buf.get(), bytes);
    again.push_back(read_ms(buf.get(), bytes));
    flush_lines(buf.get(), bytes);
    _mm_mfence();
    flushed.push_back(read_ms(buf.get(), bytes));
  }
  const double a = median(again);
  return a > 0 ? median(flushed) / a : 1.0;
}

}  // namespace

double reread_speedup(int64_t bytes) {
  if (bytes <= 0 || bytes > (int64_t{2} << 30)) return 1.0;
  static std::mutex mu;
  static std::map<int64_t, double> measured;
  std::lock_guard<std::mutex> lock(mu);
  auto it = measured.find(bytes);
  if (it == measured.end()) it = measured.emplace(bytes, measure(bytes)).first;
  return it->second;
}

}  // namespace tetune
