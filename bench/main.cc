// bazel run //bench:kernels [-- options]
//
// Runs every (bench, impl, threads) combination in its own child process (a
// re-exec of this binary with --child), so that the thread pools of oneDNN
// (OpenMP), OpenBLAS (pthreads) and Halide's JIT runtime never meet, and so
// that each library sees its thread count in the environment before it starts
// (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, HL_NUM_THREADS). The children print
// "@@RESULT {json}" lines; the parent prints the table and appends the JSON
// lines to bench/results/kernels.jsonl.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/harness.h"
#include "runtime/child_process.h"

namespace tb = tetune::bench;

namespace {

const char *kUsage = R"(usage: kernels [options]
  --only A,B       benches whose name contains A or B (gemm1024, gemm2048, conv3x3_c64_56; "gemm", "conv")
  --impl A,B       impls whose name contains A or B (onednn, openblas, halide-adams2019, halide-mullapudi2016, tetune-*)
  --threads 1,2    thread counts (default 1,2)
  --out PATH       JSONL file to append to (default $BUILD_WORKSPACE_DIRECTORY/bench/results/kernels.jsonl)
  --no-jsonl       do not write JSON lines
  --inprocess      run everything in this process (debugging; Halide thread counts then unreliable)
  --rounds R       run every child up to R times, interleaved (reverse order on odd rounds),
                   and report the median over rounds of the per-child medians (default 3)
  --rounds-max-ms T  rounds after the first only for rows whose first median is <= T ms
                   (default 250: the slow Halide rows run once, keeping the run < 5 min)
  --child-timeout S  kill a child after S seconds (default 300)
  --quiet-wait S   before each child wait up to S s (default 1) for other processes to use < 0.3 CPU
                   (given up for the rest of the run after 3 waits in a row in vain; 0 = never wait)
  --verbose        show the children's stderr (Halide autoscheduler logs) even on success
  --list           list benches and impls and exit
)";

struct Options {
  std::vector<std::string> only, impls;
  std::vector<int> threads{1, 2};
  std::string out;
  bool no_jsonl = false, inprocess = false, child = false, list = false;
  int child_timeout = 300;
  int rounds = 3;
  double rounds_max_ms = 250;
  bool verbose = false;
  double quiet_wait_s = 1;
  std::string ref_dir;
  // --child mode: exact names.
  std::string child_bench, child_impl;
};

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) v.push_back(item);
  }
  return v;
}

bool matches(const std::string &name, const std::vector<std::string> &filters) {
  if (filters.empty()) return true;
  for (const auto &f : filters) {
    if (name.find(f) != std::string::npos) return true;
  }
  return false;
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw tetune::AttributeError("kernels: option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--only") o.only = split(next());
    else if (a == "--impl") o.impls = split(next());
    else if (a == "--threads") {
      o.threads.clear();
      for (const auto &t : split(next())) o.threads.push_back(std::stoi(t));
    } else if (a == "--out") o.out = next();
    else if (a == "--no-jsonl") o.no_jsonl = true;
    else if (a == "--inprocess") o.inprocess = true;
    else if (a == "--child-timeout") o.child_timeout = std::stoi(next());
    else if (a == "--rounds") o.rounds = std::max(1, std::stoi(next()));
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--rounds-max-ms") o.rounds_max_ms = std::stod(next());
    else if (a == "--quiet-wait") o.quiet_wait_s = std::stod(next());
    else if (a == "--list") o.list = true;
    else if (a == "--child") o.child = true;
    else if (a == "--child-bench") o.child_bench = next();
    else if (a == "--child-impl") o.child_impl = next();
    else if (a == "--ref-dir") o.ref_dir = next();
    else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      throw tetune::AttributeError("kernels: unknown option '" + a + "'\n" + kUsage);
    }
  }
  return o;
}

void set_thread_env(int threads) {
  const std::string t = std::to_string(threads);
  for (const char *v : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "HL_NUM_THREADS", "MKL_NUM_THREADS"}) {
    ::setenv(v, t.c_str(), 1);
  }
}

// Runs one impl on one spec in this process. Returns false if Unsupported.
bool run_one(const tb::ImplEntry &impl, const tb::BenchSpec &spec, int threads,
             tb::BenchResult *out) {
  try {
    *out = impl.fn(spec, threads);
    out->bench = spec.name;
    out->impl = impl.name;
    out->threads = threads;
    return true;
  } catch (const tb::Unsupported &) {
    return false;
  } catch (const std::exception &e) {
    out->bench = spec.name;
    out->impl = impl.name;
    out->threads = threads;
    out->error = std::string("exception: ") + e.what();
    return true;
  }
}

// Busy and total jiffies of the whole machine (first line of /proc/stat).
struct CpuStat {
  double busy = 0, total = 0;
};
CpuStat cpu_stat() {
  CpuStat st;
  std::FILE *f = std::fopen("/proc/stat", "r");
  if (!f) return st;
  unsigned long long v[8] = {0};
  if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                  &v[4], &v[5], &v[6], &v[7]) == 8) {
    st.busy = static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
    st.total = st.busy + static_cast<double>(v[3] + v[4]);
  }
  std::fclose(f);
  return st;
}

// Waits (at most max_s) until the rest of the machine uses < 0.3 CPU over a
// 0.25 s window. Returns the last measured load in CPUs.
double wait_for_quiet(double max_s) {
  const long ncpu = ::sysconf(_SC_NPROCESSORS_ONLN);
  const auto t0 = std::chrono::steady_clock::now();
  double load = 0;
  while (true) {
    CpuStat a = cpu_stat();
    ::usleep(250000);
    CpuStat b = cpu_stat();
    load = b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) * ncpu : 0;
    if (load < 0.3) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > max_s) break;
  }
  return load;
}

std::string now_id() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
  return buf;
}

// Spawns `self --child ...`; returns its results (possibly an error row).
// *bg_load: CPUs used by other processes while the child ran (machine busy
// time minus the child's own CPU time, over its wall time).
std::vector<tb::BenchResult> run_child(const Options &o, const std::string &bench,
                                       const std::string &impl, int threads, bool *skipped,
                                       double *bg_load) {
  *skipped = false;
  const CpuStat st0 = cpu_stat();
  const auto wall0 = std::chrono::steady_clock::now();
  std::vector<std::string> args = {"/proc/self/exe", "--child", "--child-bench", bench,
                                   "--child-impl", impl, "--threads", std::to_string(threads)};
  if (!o.ref_dir.empty()) {
    args.push_back("--ref-dir");
    args.push_back(o.ref_dir);
  }
  const std::string err_path =
      (o.ref_dir.empty() ? std::string("/tmp") : o.ref_dir) + "/child_stderr_" + std::to_string(::getpid());
  // The child replaces itself with `self --child ...`, its stdout being the pipe.
  tetune::rt::Child child = tetune::rt::Child::spawn([&](int fd) {
    if (!o.verbose) {
      FILE *ef = std::fopen(err_path.c_str(), "w");
      if (ef) ::dup2(::fileno(ef), 2);
    }
    ::dup2(fd, 1);
    ::close(fd);
    set_thread_env(threads);
    ::alarm(static_cast<unsigned>(o.child_timeout));  // SIGALRM ends a hung child.
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::perror("execv");
    ::_exit(127);
  });
  while (child.read_some()) {
  }
  const tetune::rt::ChildExit ex = child.reap(false);
  const std::string &text = ex.payload;
  {
    const CpuStat st1 = cpu_stat();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const double busy_s = (st1.busy - st0.busy) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    *bg_load = wall > 0 ? std::max(0.0, (busy_s - ex.cpu_s) / wall) : 0;
  }
  std::string child_err;
  if (!o.verbose) {
    std::FILE *ef = std::fopen(err_path.c_str(), "r");
    if (ef) {
      char buf[4096];
      while (size_t m = std::fread(buf, 1, sizeof buf, ef)) child_err.append(buf, m);
      std::fclose(ef);
    }
    ::unlink(err_path.c_str());
  }
  const bool child_ok = ex.ok();

  std::vector<tb::BenchResult> results;
  std::istringstream lines(text);
  std::string line;
  bool saw_skip = false;
  while (std::getline(lines, line)) {
    if (line.rfind("@@RESULT ", 0) == 0) {
      try {
        results.push_back(tb::from_json(line.substr(9)));
      } catch (const std::exception &e) {
        std::fprintf(stderr, "%s\n", e.what());
      }
    } else if (line.rfind("@@SKIP", 0) == 0) {
      saw_skip = true;
    } else {
      std::fprintf(stderr, "  [child] %s\n", line.c_str());
    }
  }
  bool any_error = !child_ok || results.empty();
  for (const auto &r : results) any_error |= !r.ok();
  if (any_error && !child_err.empty()) {
    std::fprintf(stderr, "  ---- child stderr ----\n%s  ----------------------\n", child_err.c_str());
  }
  if (results.empty()) {
    if (saw_skip && child_ok) {
      *skipped = true;
      return results;
    }
    tb::BenchResult r;
    r.bench = bench;
    r.impl = impl;
    r.threads = threads;
    std::ostringstream os;
    if (ex.signal > 0) {
      os << "child killed by signal " << ex.signal << " (" << strsignal(ex.signal) << ")";
      if (ex.signal == SIGALRM) os << ": over --child-timeout " << o.child_timeout << " s";
    } else {
      os << "child exited with status " << ex.exit_status << " and no result";
    }
    r.error = os.str();
    results.push_back(r);
  }
  return results;
}

int child_main(const Options &o) {
  if (o.threads.size() != 1) throw tetune::AttributeError("kernels --child: one --threads value");
  const int threads = o.threads[0];
  set_thread_env(threads);
  for (const auto &spec : tb::all_specs()) {
    if (spec.name != o.child_bench) continue;
    for (const auto &impl : tb::registered_impls()) {
      if (impl.name != o.child_impl) continue;
      tb::BenchResult r;
      if (run_one(impl, spec, threads, &r)) {
        std::printf("@@RESULT %s\n", tb::to_json(r).c_str());
      } else {
        std::printf("@@SKIP\n");
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

std::string loadavg() {
  std::FILE *f = std::fopen("/proc/loadavg", "r");
  if (!f) return "?";
  char buf[128] = {0};
  if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
  std::fclose(f);
  std::string s(buf);
  // First three fields: 1, 5, 15 minute load averages.
  size_t pos = 0;
  for (int i = 0; i < 3 && pos != std::string::npos; ++i) pos = s.find(' ', pos + 1);
  return s.substr(0, pos);
}

std::string default_out() {
  const char *ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  std::string root = ws && *ws ? ws : ".";
  return root + "/bench/results/kernels.jsonl";
}

int parent_main(Options o) {
  std::vector<tb::BenchSpec> specs;
  for (const auto &s : tb::all_specs()) {
    if (matches(s.name, o.only)) specs.push_back(s);
  }
  std::vector<tb::ImplEntry> impls;
  for (const auto &e : tb::registered_impls()) {
    if (matches(e.name, o.impls)) impls.push_back(e);
  }
  if (o.list) {
    std::printf("benches:\n");
    for (const auto &s : tb::all_specs())
      std::printf("  %-16s %s  (%.3g GFLOP)\n", s.name.c_str(), s.shape_string().c_str(),
                  s.flops() / 1e9);
    std::printf("impls:\n");
    for (const auto &e : tb::registered_impls()) std::printf("  %s\n", e.name.c_str());
    return 0;
  }
  if (specs.empty() || impls.empty()) {
    std::fprintf(stderr, "kernels: the filters select no bench or no impl (try --list)\n");
    return 2;
  }

  // Per-run reference cache shared by the children (removed at the end).
  char tmpl[] = "/tmp/tetune_bench_ref_XXXXXX";
  const char *dir = ::mkdtemp(tmpl);
  if (dir) {
    o.ref_dir = dir;
    tb::set_reference_cache_dir(dir);
  }

  const std::string run_id = now_id();
  const std::string load_start = loadavg();
  const auto t_start = std::chrono::steady_clock::now();
  struct Combo {
    const tb::BenchSpec *spec;
    const tb::ImplEntry *impl;
    int threads;
    std::vector<tb::BenchResult> rounds;  // one per round (ok or error)
    std::vector<double> bg;                // background load per round (CPUs)
    bool skipped = false;
  };
  std::vector<Combo> combos;
  for (const auto &spec : specs)
    for (const auto &impl : impls)
      for (int threads : o.threads) combos.push_back(Combo{&spec, &impl, threads, {}, {}, false});
  size_t total = combos.size();
  size_t idx = 0;
  int quiet_failures = 0;
  for (int round = 0; round < o.rounds; ++round) {
    if (round == 1) {
      size_t again = 0;
      for (const auto &c : combos)
        again += !c.rounds.empty() && c.rounds.front().ok() &&
                 c.rounds.front().median_ms <= o.rounds_max_ms;
      total += again * (o.rounds - 1);
    }
    for (size_t ci = 0; ci < combos.size(); ++ci) {
      Combo &c = combos[round % 2 ? combos.size() - 1 - ci : ci];
      if (c.skipped) continue;
      if (round > 0) {
        // Error rows stay errors; slow rows are not repeated (time budget).
        if (c.rounds.empty() || !c.rounds.front().ok()) continue;
        if (c.rounds.front().median_ms > o.rounds_max_ms) continue;
      }
      ++idx;
      std::fprintf(stderr, "[%zu/%zu] round %d: %s %s threads=%d ...\n", idx, total, round + 1,
                   c.spec->name.c_str(), c.impl->name.c_str(), c.threads);
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<tb::BenchResult> got;
      bool skipped = false;
      double bg = -1;
      if (o.inprocess) {
        set_thread_env(c.threads);
        tb::BenchResult r;
        if (run_one(*c.impl, *c.spec, c.threads, &r)) got.push_back(r);
        else skipped = true;
      } else {
        if (o.quiet_wait_s > 0 && quiet_failures < 3) {
          // Give up waiting once the machine stayed busy 3 times in a row.
          quiet_failures = wait_for_quiet(o.quiet_wait_s) < 0.3 ? 0 : quiet_failures + 1;
          if (quiet_failures == 3)
            std::fprintf(stderr, "    (machine stays busy: no more waiting for quiet)\n");
        }
        got = run_child(o, c.spec->name, c.impl->name, c.threads, &skipped, &bg);
      }
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (skipped) {
        c.skipped = true;
        std::fprintf(stderr, "    (not implemented for this bench)\n");
        continue;
      }
      for (const auto &r : got) {
        if (r.ok()) {
          std::fprintf(stderr, "    %.3f ms  %.1f GFLOP/s  err %.2e  (%.1f s)\n", r.median_ms,
                       r.gflops, r.max_abs_err, secs);
        } else {
          std::fprintf(stderr, "    ERROR %s  (%.1f s)\n", r.error.c_str(), secs);
        }
      }
      if (bg >= 0) std::fprintf(stderr, "    background load %.2f CPUs\n", bg);
      if (!got.empty()) {
        c.rounds.push_back(got.front());
        c.bg.push_back(bg);
      }
    }
  }

  // Median over rounds; any failed round makes the row an error row.
  std::vector<tb::BenchResult> all;
  for (const auto &c : combos) {
    if (c.skipped || c.rounds.empty()) continue;
    const tb::BenchResult *bad = nullptr;
    std::vector<double> ms;
    for (const auto &r : c.rounds) {
      if (!r.ok() && !bad) bad = &r;
      if (r.ok()) ms.push_back(r.median_ms);
    }
    if (bad) {
      all.push_back(*bad);
      continue;
    }
    tb::BenchResult r = c.rounds.front();
    std::sort(ms.begin(), ms.end());
    const size_t n = ms.size();
    r.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    r.gflops = c.spec->flops() / (r.median_ms * 1e-3) / 1e9;
    for (const auto &x : c.rounds) r.max_abs_err = std::max(r.max_abs_err, x.max_abs_err);
    r.repeats = 0;
    for (const auto &x : c.rounds) r.repeats += x.repeats;
    r.best_ms = ms.front();
    if (!c.bg.empty() && c.bg.front() >= 0) {
      std::string b = "bg load";
      char buf[32];
      for (size_t i = 0; i < c.bg.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%s%.1f", i ? "/" : " ", c.bg[i]);
        b += buf;
      }
      r.note = b + " CPU; " + r.note;
    }
    if (n > 1) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "med of %zu runs %.3f..%.3f ms; ", n, ms.front(), ms.back());
      r.note = buf + r.note;
    }
    all.push_back(r);
  }
  if (dir) {
    for (const auto &s : specs) ::unlink((std::string(dir) + "/" + s.name + ".ref").c_str());
    ::rmdir(dir);
  }

  std::printf("\n");
  tb::print_table(all);
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::printf("total wall time %.1f s; load average (1/5/15 min) %s at start, %s at end, %ld CPUs\n",
              total_s, load_start.c_str(), loadavg().c_str(), ::sysconf(_SC_NPROCESSORS_ONLN));
  if (!o.no_jsonl) {
    const std::string path = o.out.empty() ? default_out() : o.out;
    tb::append_jsonl(path, all, run_id);
    std::printf("appended %zu JSON lines (run \"%s\") to %s\n", all.size(), run_id.c_str(),
                path.c_str());
  }
  bool any_error = false;
  for (const auto &r : all) any_error |= !r.ok();
  return any_error ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    Options o = parse(argc, argv);
    if (!o.ref_dir.empty()) tb::set_reference_cache_dir(o.ref_dir);
    return o.child ? child_main(o) : parent_main(o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "kernels: %s\n", e.what());
    return 2;
  }
}
