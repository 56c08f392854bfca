#include "runtime/run_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <tuple>

#include "runtime/io.h"
#include "runtime/model.h"
#include "runtime/spin_pool.h"
#include "base/errors.h"

namespace tetune {
namespace rt {

namespace {
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

void add_run_options(CLI::App *cmd, RunOptions &o) {
  cmd->add_option("dir", o.dir, "directory written by `tetune compile` (graph.bin, weights.bin, libmodel.so)")->required();
  cmd->add_option("--input", o.inputs, "NAME=file.npy or NAME=file.pb (repeatable; default: make_input.js seed-7 data)");
  cmd->add_option("--output", o.outputs, "file.npy or NAME=file.npy (repeatable)");
  // Values that make no sense are usage errors naming the option (CLI11's ValidationError).
  constexpr int kMaxInt = std::numeric_limits<int>::max();
  cmd->add_option("--repeat", o.repeat, "timed runs after the warm-up (default 50)")->check(CLI::Range(1, kMaxInt));
  cmd->add_option("--warmup", o.warmup, "untimed runs first (default 1, at least 1)")->check(CLI::Range(1, kMaxInt));
  cmd->add_option("--threads", o.threads,
                  "Halide thread pool size (default " + std::to_string(SpinPool::default_threads()) +
                      ": this machine's cores, or $HL_NUM_THREADS; the same default in every command)")
      ->check(CLI::Range(1, SpinPool::kMaxThreads));
  cmd->add_flag("--json", o.json, "also print one JSON line with the timings");
  cmd->add_option("--profile", o.profile, "print the N kernel calls with the largest median time over the timed runs, then the N kernels "
                  "with the largest total over their calls (ms, share)")
      ->check(CLI::Range(0, kMaxInt));
  cmd->add_flag("--profile-warm", o.profile_warm,
                "with --profile: also time each kernel call a second time right after it (its code, weights and inputs "
                "now in cache) and print that median beside the first; the sums' difference is what cold caches cost the model")
      ->needs("--profile");
}

namespace {
double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Per-kernel medians over the timed runs, largest first; with `warm` (the
// calls' second, back-to-back times, empty when not taken) each beside it.
void print_profile(const std::vector<std::string> &names, const std::vector<std::vector<double>> &per_call,
                   const std::vector<std::vector<double>> &warm, int top) {
  std::vector<std::pair<double, size_t>> med;
  std::vector<double> warm_med(warm.size());
  double total = 0, warm_total = 0, rerun_total = 0;  // rerun_total: first times of the calls rerun
  for (size_t i = 0; i < per_call.size(); i++) {
    med.push_back({median_of(per_call[i]), i});
    total += med.back().first;
    if (i < warm.size()) {
      warm_med[i] = median_of(warm[i]);  // NaN where the call was not rerun
      if (!std::isnan(warm_med[i])) warm_total += warm_med[i], rerun_total += med.back().first;
    }
  }
  std::sort(med.rbegin(), med.rend());
  // Each run's calls summed: their median is what the latency's median compares with (a sum of medians is lower, as
  // each median drops the run's few slow calls).
  std::vector<double> run_sums(per_call.empty() ? 0 : per_call[0].size(), 0.0);
  for (const auto &c : per_call)
    for (size_t j = 0; j < c.size() && j < run_sums.size(); j++) run_sums[j] += c[j];
  std::printf("profile: %zu kernel calls, sum of medians %.3f ms, median run of the calls %.3f ms\n", med.size(), total,
              median_of(run_sums));
  if (!warm.empty())
    std::printf("profile warm: each call again at once, sum of medians %.3f ms against %.3f first (cold caches cost %.3f ms, %.1f%%)\n",
                warm_total, rerun_total, rerun_total - warm_total, rerun_total > 0 ? 100 * (rerun_total - warm_total) / rerun_total : 0.0);
  for (int i = 0; i < top && i < static_cast<int>(med.size()); i++) {
    const auto &[ms, c] = med[i];
    std::printf("  %8.3f ms %5.1f%%  ", ms, total > 0 ? 100 * ms / total : 0.0);
    if (!warm.empty()) {
      if (!std::isnan(warm_med[c])) std::printf("warm %8.3f ms %5.2fx  ", warm_med[c], warm_med[c] > 0 ? ms / warm_med[c] : 0.0);
      else std::printf("warm %8s    %5s   ", "-", "-");
    }
    std::printf("%s\n", names[c].c_str());
  }
  // The same by kernel (a kernel is one tuning task; a model calls it once
  // per layer), to set beside the tuner's per-task times.
  std::map<std::string, std::pair<double, int>> by_kernel;
  for (const auto &[ms, i] : med) {
    auto &k = by_kernel[names[i].substr(names[i].find(':') + 1)];
    k.first += ms, k.second++;
  }
  std::vector<std::tuple<double, int, std::string>> order;  // total ms, calls, kernel
  for (const auto &[name, k] : by_kernel) order.push_back({k.first, k.second, name});
  std::sort(order.rbegin(), order.rend());
  std::printf("profile by kernel: %zu kernels (total ms, calls, ms per call)\n", order.size());
  for (int i = 0; i < top && i < static_cast<int>(order.size()); i++) {
    const auto &[ms, calls, name] = order[i];
    std::printf("  %8.3f ms %5.1f%%  %4d x %8.3f ms  %s\n", ms, total > 0 ? 100 * ms / total : 0.0, calls, ms / calls,
                name.c_str());
  }
}
}  // namespace

void run_exported(const RunOptions &o) {
  double t0 = now_ms();
  auto m = Model::load(o.dir);
  double t1 = now_ms();
  if (o.threads > 0) m->set_num_threads(o.threads);
  auto names = m->input_names();
  std::map<std::string, NDArray> feeds;
  for (const auto &s : o.inputs) {
    size_t eq = s.find('=');
    std::string name, file = s;
    if (eq != std::string::npos) name = s.substr(0, eq), file = s.substr(eq + 1);
    else if (names.size() == 1) name = names[0];
    else throw ShapeError("--input '" + s + "': expected NAME=file (the model has " + std::to_string(names.size()) + " inputs)");
    feeds[name] = read_tensor_file(file);
  }
  for (size_t i = 0; i < names.size(); i++)
    if (!feeds.count(names[i])) {
      const PlanValue &v = m->plan().values[m->plan().inputs[i]];
      if (v.dtype_code != 2 || v.dtype_bits != 32) throw ShapeError("input '" + names[i] + "' is missing (--input NAME=file.npy)");
      std::printf("input %s: no --input, using make_input.js seed-7 data %s\n", names[i].c_str(), shape_string(v.shape).c_str());
      feeds[names[i]] = make_input(v.shape, 7);
    }
  std::printf("loaded %s: %zu groups, %zu kernels, target %s, weights %.2f MB, buffers %.2f MB (load %.1f ms)\n",
              o.dir.c_str(), m->plan().groups.size(), m->plan().kernels.size(), m->plan().target.c_str(),
              m->weights_bytes() / 1e6, m->buffer_bytes() / 1e6, t1 - t0);
  std::map<std::string, NDArray> out;
  for (int i = 0; i < std::max(1, o.warmup); i++) out = m->run(feeds);
  std::vector<double> ms;
  std::vector<std::vector<double>> per_call, warm;  // [call][run]
  if (o.profile > 0) {
    m->set_profiling(true);
    per_call.resize(m->call_names().size());
  }
  if (o.profile > 0 && o.profile_warm) {
    m->set_warm_rerun(true);
    warm.resize(per_call.size());
  }
  for (int i = 0; i < o.repeat; i++) {
    double a = now_ms();
    out = m->run(feeds);
    ms.push_back(now_ms() - a);
    for (size_t c = 0; c < per_call.size(); c++) per_call[c].push_back(m->last_call_ms()[c]);
    for (size_t c = 0; c < warm.size(); c++) warm[c].push_back(m->last_warm_call_ms()[c]);
  }
  for (const auto &name : m->output_names()) {
    const NDArray &a = out[name];
    double mn = std::numeric_limits<double>::infinity(), mx = -mn, sum = 0;
    for (int64_t i = 0; i < a.size(); i++) {
      double v = a.get(i);
      mn = std::min(mn, v), mx = std::max(mx, v), sum += v;
    }
    std::printf("output %s: %s %s min %.6g max %.6g mean %.6g first [", name.c_str(), a.dtype().str().c_str(),
                shape_str(a.shape()).c_str(), mn, mx, a.size() ? sum / a.size() : 0.0);
    for (int64_t i = 0; i < std::min<int64_t>(a.size(), 6); i++) std::printf("%s%.6g", i ? ", " : "", a.get(i));
    std::printf("%s]\n", a.size() > 6 ? ", ..." : "");
  }
  double med = 0, mn = 0;
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    med = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
    mn = ms[0];
    std::printf("latency: median %.3f ms, min %.3f ms over %d runs (threads %s)\n", med, mn, o.repeat,
                o.threads > 0 ? std::to_string(o.threads).c_str() : "default");
  }
  if (o.profile > 0) print_profile(m->call_names(), per_call, warm, o.profile);
  if (o.json)
    std::printf("{\"dir\":\"%s\",\"threads\":%d,\"repeat\":%d,\"median_ms\":%.4f,\"min_ms\":%.4f,\"load_ms\":%.2f}\n",
                o.dir.c_str(), o.threads, o.repeat, med, mn, t1 - t0);
  auto onames = m->output_names();
  for (size_t i = 0; i < o.outputs.size(); i++) {
    std::string s = o.outputs[i], name, file = s;
    size_t eq = s.find('=');
    if (eq != std::string::npos) name = s.substr(0, eq), file = s.substr(eq + 1);
    else if (i < onames.size()) name = onames[i];
    if (!out.count(name)) throw ShapeError("--output: the model has no output '" + name + "'");
    write_npy_file(file, out[name]);
    std::printf("wrote %s\n", file.c_str());
  }
}

void add_run_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("run", "Run a model exported by `tetune compile` (compiler-free runtime)");
  auto o = std::make_shared<RunOptions>();
  add_run_options(cmd, *o);
  cmd->callback([o] { run_exported(*o); });
}

}  // namespace rt
}  // namespace tetune
