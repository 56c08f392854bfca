#include "bench/harness.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/json_line.h"

namespace tetune {
namespace bench {

// ---------------------------------------------------------------------------
// Specs.

int64_t BenchSpec::input0_elems() const {
  return kind == BenchKind::kGemm ? M * K : batch * in_c * in_h * in_w;
}
int64_t BenchSpec::input1_elems() const {
  return kind == BenchKind::kGemm ? K * N : out_c * in_c * kh * kw;
}
int64_t BenchSpec::output_elems() const {
  return kind == BenchKind::kGemm ? M * N : batch * out_c * out_h() * out_w();
}
int64_t BenchSpec::reduction_len() const {
  return kind == BenchKind::kGemm ? K : in_c * kh * kw;
}
double BenchSpec::flops() const {
  return 2.0 * static_cast<double>(output_elems()) * static_cast<double>(reduction_len());
}
std::string BenchSpec::shape_string() const {
  std::ostringstream os;
  if (kind == BenchKind::kGemm) {
    os << M << "x" << N << "x" << K;
  } else {
    os << "N" << batch << " C" << in_c << " H" << in_h << " W" << in_w << " K" << out_c << " "
       << kh << "x" << kw << " s" << stride << " p" << pad;
  }
  return os.str();
}

static BenchSpec gemm_spec(const std::string &name, int64_t n) {
  BenchSpec s;
  s.name = name;
  s.kind = BenchKind::kGemm;
  s.M = s.N = s.K = n;
  return s;
}

const std::vector<BenchSpec> &all_specs() {
  static const std::vector<BenchSpec> specs = [] {
    std::vector<BenchSpec> v;
    v.push_back(gemm_spec("gemm1024", 1024));
    v.push_back(gemm_spec("gemm2048", 2048));
    BenchSpec c;
    c.name = "conv3x3_c64_56";
    c.kind = BenchKind::kConv2d;
    c.batch = 1;
    c.in_c = 64;
    c.in_h = c.in_w = 56;
    c.out_c = 64;
    c.kh = c.kw = 3;
    c.stride = 1;
    c.pad = 1;
    v.push_back(c);
    return v;
  }();
  return specs;
}

// ---------------------------------------------------------------------------
// Registry.

static std::vector<ImplEntry> &registry() {
  static std::vector<ImplEntry> r;
  return r;
}

bool register_impl(const std::string &name, ImplFn fn, int order) {
  for (const auto &e : registry()) {
    if (e.name == name) throw tetune::Error("bench: impl '" + name + "' registered twice");
  }
  registry().push_back(ImplEntry{name, std::move(fn), order});
  return true;
}

std::vector<ImplEntry> registered_impls() {
  std::vector<ImplEntry> v = registry();
  std::stable_sort(v.begin(), v.end(), [](const ImplEntry &a, const ImplEntry &b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return v;
}

// ---------------------------------------------------------------------------
// Inputs and reference.

static void fill_uniform(std::vector<float> &v, uint64_t seed) {
  // splitmix64: deterministic across compilers and standard libraries.
  uint64_t x = seed;
  for (float &f : v) {
    x += 0x9E3779B97F4A7C15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    f = static_cast<float>(static_cast<double>(z >> 40) / static_cast<double>(1ull << 24) * 2.0 -
                           1.0);
  }
}

void reference_gemm(const BenchSpec &s, const float *a, const float *b, float *out) {
  std::vector<double> acc(s.N);
  for (int64_t i = 0; i < s.M; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t k = 0; k < s.K; ++k) {
      const double aik = a[i * s.K + k];
      const float *brow = b + k * s.N;
      for (int64_t j = 0; j < s.N; ++j) acc[j] += aik * brow[j];
    }
    for (int64_t j = 0; j < s.N; ++j) out[i * s.N + j] = static_cast<float>(acc[j]);
  }
}

void reference_conv2d(const BenchSpec &s, const float *in, const float *w, float *out) {
  const int64_t OH = s.out_h(), OW = s.out_w();
  std::vector<double> acc(OH * OW);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t k = 0; k < s.out_c; ++k) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t c = 0; c < s.in_c; ++c) {
        const float *plane = in + ((n * s.in_c + c) * s.in_h) * s.in_w;
        for (int64_t r = 0; r < s.kh; ++r) {
          for (int64_t q = 0; q < s.kw; ++q) {
            const double wv = w[((k * s.in_c + c) * s.kh + r) * s.kw + q];
            for (int64_t oh = 0; oh < OH; ++oh) {
              const int64_t ih = oh * s.stride + r - s.pad;
              if (ih < 0 || ih >= s.in_h) continue;
              for (int64_t ow = 0; ow < OW; ++ow) {
                const int64_t iw = ow * s.stride + q - s.pad;
                if (iw < 0 || iw >= s.in_w) continue;
                acc[oh * OW + ow] += wv * plane[ih * s.in_w + iw];
              }
            }
          }
        }
      }
      float *dst = out + (n * s.out_c + k) * OH * OW;
      for (int64_t i = 0; i < OH * OW; ++i) dst[i] = static_cast<float>(acc[i]);
    }
  }
}

static std::string &ref_cache_dir() {
  static std::string d;
  return d;
}
void set_reference_cache_dir(const std::string &dir) { ref_cache_dir() = dir; }

const BenchData &bench_data(const BenchSpec &spec) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<BenchData>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(spec.name);
  if (it != cache.end()) return *it->second;
  auto d = std::make_unique<BenchData>();
  d->input0.resize(spec.input0_elems());
  d->input1.resize(spec.input1_elems());
  // FNV-1a of the bench name: seeds are fixed per bench, across runs.
  uint64_t h = 1469598103934665603ull;
  for (char c : spec.name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  fill_uniform(d->input0, h + 1);
  fill_uniform(d->input1, h + 2);
  d->reference.resize(spec.output_elems());
  const size_t bytes = d->reference.size() * sizeof(float);
  bool loaded = false;
  std::string path;
  if (!ref_cache_dir().empty()) {
    path = ref_cache_dir() + "/" + spec.name + ".ref";
    std::ifstream f(path, std::ios::binary);
    if (f && f.read(reinterpret_cast<char *>(d->reference.data()), bytes) &&
        static_cast<size_t>(f.gcount()) == bytes) {
      loaded = true;
    }
  }
  if (!loaded) {
    if (spec.kind == BenchKind::kGemm) {
      reference_gemm(spec, d->input0.data(), d->input1.data(), d->reference.data());
    } else {
      reference_conv2d(spec, d->input0.data(), d->input1.data(), d->reference.data());
    }
    if (!path.empty()) {
      std::string tmp = path + ".tmp" + std::to_string(::getpid());
      std::ofstream f(tmp, std::ios::binary);
      f.write(reinterpret_cast<const char *>(d->reference.data()), bytes);
      f.close();
      if (f) std::rename(tmp.c_str(), path.c_str());
    }
  }
  const BenchData &ref = *d;
  cache.emplace(spec.name, std::move(d));
  return ref;
}

double tolerance_for(const BenchSpec &spec) {
  // Inputs are uniform in [-1, 1), so |ref| ~ sqrt(reduction_len / 9) (about
  // 15 for K = 2048). An fp32 kernel with any summation order stays within a
  // few 1e-5 of the double-accumulated reference; a layout or indexing bug is
  // off by O(1). 1e-5 * reduction_len (2e-2 at K = 2048, 5.8e-3 for the conv)
  // separates the two with plenty of room either way.
  return 1e-5 * static_cast<double>(spec.reduction_len());
}

// ---------------------------------------------------------------------------
// Timing and checking.

using Clock = std::chrono::steady_clock;

static double time_once_ms(const std::function<void()> &fn) {
  auto t0 = Clock::now();
  fn();
  auto t1 = Clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

double median_ms_of(std::function<void()> fn, int warmup, int repeats) {
  for (int i = 0; i < warmup; ++i) fn();
  if (repeats < 1) repeats = 1;
  std::vector<double> t;
  t.reserve(repeats);
  for (int i = 0; i < repeats; ++i) t.push_back(time_once_ms(fn));
  std::sort(t.begin(), t.end());
  const size_t n = t.size();
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int repeats_for(double one_ms, double target_s) {
  if (!(one_ms > 0)) return 200;
  double r = target_s * 1000.0 / one_ms;
  // Slow kernels (> 0.3 s a call) get at least 3 repeats, others at least 5.
  const double lo = one_ms > 300.0 ? 3.0 : 5.0;
  return static_cast<int>(std::max(lo, std::min(200.0, std::ceil(r))));
}

BenchResult check_and_time(const BenchSpec &spec, const std::string &impl, int threads,
                           const std::function<void()> &run,
                           const std::function<void(float *dst)> &read_output,
                           const std::function<void()> &poison_output,
                           const std::string &note) {
  BenchResult r;
  r.bench = spec.name;
  r.impl = impl;
  r.threads = threads;
  r.note = note;
  const BenchData &data = bench_data(spec);

  if (poison_output) poison_output();
  run();
  std::vector<float> got(spec.output_elems(), std::numeric_limits<float>::quiet_NaN());
  read_output(got.data());
  double err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double e = std::fabs(static_cast<double>(got[i]) - data.reference[i]);
    if (!(e <= err)) err = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
  }
  r.max_abs_err = err;
  const double tol = tolerance_for(spec);
  if (!(err <= tol)) {
    std::ostringstream os;
    os << "WRONG RESULT: max abs err " << err << " > tol " << tol;
    r.error = os.str();
    return r;
  }

  // Warm-up (the checked call above was the first): one more call, then more
  // until ~0.2 s is spent; the last one sizes the repeats.
  double one = 0, spent = 0;
  int w = 0;
  while (w < 1 || (spent < 200.0 && w < 50)) {
    one = time_once_ms(run);
    spent += one;
    ++w;
  }
  r.repeats = repeats_for(one);
  r.median_ms = median_ms_of(run, 0, r.repeats);
  r.gflops = spec.flops() / (r.median_ms * 1e-3) / 1e9;
  return r;
}

BenchResult check_and_time(const BenchSpec &spec, const std::string &impl, int threads,
                           const std::function<void()> &run, float *out,
                           const std::string &note) {
  const int64_t n = spec.output_elems();
  return check_and_time(
      spec, impl, threads, run,
      [out, n](float *dst) { std::memcpy(dst, out, sizeof(float) * n); },
      [out, n] { std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN()); }, note);
}

// ---------------------------------------------------------------------------
// JSON.

std::string to_json(const BenchResult &r, const std::string &run_id) {
  using json = nlohmann::ordered_json;
  json j;
  j["bench"] = r.bench;
  j["impl"] = r.impl;
  j["threads"] = r.threads;
  j["median_ms"] = r.ok() ? json_number(r.median_ms) : json(nullptr);
  j["gflops"] = r.ok() ? json_number(r.gflops) : json(nullptr);
  j["max_abs_err"] = r.max_abs_err >= 0 ? json_number(r.max_abs_err) : json(nullptr);
  j["best_ms"] = r.ok() && r.best_ms > 0 ? json_number(r.best_ms) : json(nullptr);
  j["repeats"] = r.repeats;
  j["note"] = r.note;
  if (!r.ok()) j["error"] = r.error;
  if (!run_id.empty()) j["run"] = run_id;
  return json_line(j);
}

BenchResult from_json(const std::string &line) {
  using json = nlohmann::json;
  BenchResult r;
  try {
    const json j = json::parse(line);
    if (!j.is_object()) throw tetune::ParseError("bench: a result line is no JSON object: " + line);
    // A number field: `absent` when missing, `null` when null (a failed row's time).
    auto number = [&](const char *key, double absent, double null) {
      auto it = j.find(key);
      return it == j.end() ? absent : it->is_null() ? null : it->get<double>();
    };
    r.bench = j.value("bench", "");
    r.impl = j.value("impl", "");
    r.note = j.value("note", "");
    r.error = j.value("error", "");
    r.threads = static_cast<int>(number("threads", 0, 0));
    r.repeats = static_cast<int>(number("repeats", 0, 0));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.median_ms = number("median_ms", 0, nan);
    r.gflops = number("gflops", 0, nan);
    r.best_ms = number("best_ms", 0, 0);
    r.max_abs_err = number("max_abs_err", -1, -1);
  } catch (const json::exception &e) {
    throw tetune::ParseError(std::string("bench: bad result line (") + e.what() + "): " + line);
  }
  return r;
}

static void mkdirs(const std::string &dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') {
      std::string sub = dir.substr(0, pos);
      ::mkdir(sub.c_str(), 0755);
    }
  }
}

void append_jsonl(const std::string &path, const std::vector<BenchResult> &results,
                  const std::string &run_id) {
  size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) mkdirs(path.substr(0, slash));
  std::ofstream f(path, std::ios::app);
  if (!f) throw tetune::Error("bench: cannot open '" + path + "' for appending");
  for (const auto &r : results) f << to_json(r, run_id) << "\n";
  if (!f) throw tetune::Error("bench: write to '" + path + "' failed");
}

// ---------------------------------------------------------------------------
// Table.

static bool is_tetune(const std::string &impl) { return impl.rfind("tetune", 0) == 0; }

void print_table(const std::vector<BenchResult> &results, std::FILE *out) {
  // Base per (bench, threads).
  std::map<std::pair<std::string, int>, std::pair<double, std::string>> base;
  bool any_tetune = false;
  for (const auto &r : results) any_tetune |= (r.ok() && is_tetune(r.impl));
  for (const auto &r : results) {
    if (!r.ok()) continue;
    const bool candidate = any_tetune ? is_tetune(r.impl) : r.impl == "onednn";
    if (!candidate) continue;
    auto key = std::make_pair(r.bench, r.threads);
    auto it = base.find(key);
    if (it == base.end() || r.median_ms < it->second.first) base[key] = {r.median_ms, r.impl};
  }
  const char *ratio_name = any_tetune ? "x tetune" : "x onednn";
  std::fprintf(out, "%-16s %-22s %3s %11s %11s %9s %9s %10s  %s\n", "bench", "impl", "thr",
               "median_ms", "best_ms", "GFLOP/s", ratio_name, "max_err", "note");
  std::fprintf(out, "%s\n", std::string(122, '-').c_str());
  std::string last_bench;
  for (const auto &r : results) {
    if (!last_bench.empty() && r.bench != last_bench) std::fprintf(out, "\n");
    last_bench = r.bench;
    char err[32] = "-";
    if (r.max_abs_err >= 0) std::snprintf(err, sizeof err, "%.2e", r.max_abs_err);
    if (!r.ok()) {
      std::fprintf(out, "%-16s %-22s %3d %11s %11s %9s %9s %10s  ERROR: %s%s%s\n",
                   r.bench.c_str(), r.impl.c_str(), r.threads, "-", "-", "-", "-", err,
                   r.error.c_str(),
                   r.note.empty() ? "" : " | ", r.note.c_str());
      continue;
    }
    char ratio[32] = "-";
    auto it = base.find({r.bench, r.threads});
    if (it != base.end() && it->second.first > 0) {
      std::snprintf(ratio, sizeof ratio, "%.2f", r.median_ms / it->second.first);
    }
    char best[32] = "-";
    if (r.best_ms > 0) std::snprintf(best, sizeof best, "%.3f", r.best_ms);
    std::fprintf(out, "%-16s %-22s %3d %11.3f %11s %9.1f %9s %10s  %s\n", r.bench.c_str(),
                 r.impl.c_str(), r.threads, r.median_ms, best, r.gflops, ratio, err,
                 r.note.c_str());
  }
  std::fprintf(out,
               "\nratio = median_ms / median_ms of %s for the same bench and threads;\n"
               "median_ms = median over rounds of each run's median, best_ms = min over rounds;\n"
               "bg load = CPUs used by other processes during each run (2-CPU machine)\n",
               any_tetune ? "the fastest tetune* impl" : "onednn");
}

}  // namespace bench
}  // namespace tetune
