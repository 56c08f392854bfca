#include "autotune/measure/measure.h"

#include <immintrin.h>

#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <sys/prctl.h>
#include <limits>
#include <set>

#include "base/cache_lines.h"
#include "base/cache_sizes.h"
#include "codegen/kernel.h"
#include "runtime/child_process.h"
#include "schedule/trace.h"
#include "base/errors.h"
#include "tuning_logs/records.h"

namespace tetune {
namespace autotune {

using tuning_log::ErrorCode;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
// A steady-clock reading in seconds, comparable across the processes of this machine (CLOCK_MONOTONIC).
double clock_s(Clock::time_point t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

// ---- a tiny binary message, child -> parent ---------------------------------
struct Writer {
  std::string buf;
  template <typename T> void pod(const T &v) { buf.append(reinterpret_cast<const char *>(&v), sizeof(T)); }
  void str(const std::string &s) { pod<uint64_t>(s.size()); buf += s; }
  void bytes(const void *p, size_t n) { pod<uint64_t>(n); buf.append(static_cast<const char *>(p), n); }
};
struct Reader {
  const std::string &buf;
  size_t pos = 0;
  bool ok = true;
  template <typename T> T pod() {
    T v{};
    if (pos + sizeof(T) > buf.size()) { ok = false; return v; }
    std::memcpy(&v, buf.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string str() {
    uint64_t n = pod<uint64_t>();
    if (!ok || pos + n > buf.size()) { ok = false; return {}; }
    std::string s = buf.substr(pos, n);
    pos += n;
    return s;
  }
};

// Evicts the array's cache lines from every cache level.
void flush_from_cache(const NDArray &a) { flush_lines(a.raw(), a.nbytes()); }

// Pushes what the calling core's L2 holds out to the L3: reads a scratch buffer of three times the L2
// (4 MiB when the L2 size is unknown), so that an LRU-like replacement leaves little of the rest.
// Returns read_lines' sum.
unsigned push_l2_out() {
  static const std::vector<unsigned char> scratch([] {
    const int64_t l2 = host_cache_sizes().l2_bytes;
    return static_cast<size_t>(3 * (l2 > 0 ? l2 : int64_t{4} << 20));
  }(), 1);
  return read_lines(scratch.data(), static_cast<int64_t>(scratch.size()));
}

}  // namespace

tuning_log::MeasureRecord measure_record(const std::string &schedule_json, const MeasureResult &m,
                                         const std::string &tuner_version, int trial_index) {
  tuning_log::MeasureRecord rec;
  rec.schedule_json = schedule_json;
  rec.costs_ms = m.costs_ms;
  rec.median_ms = m.ok() ? m.median_ms : std::numeric_limits<double>::infinity();
  rec.error_code = static_cast<int>(m.error);
  rec.error_msg = m.error_msg;
  rec.gflops = m.ok() ? m.gflops : 0.0;
  rec.tuner_version = tuner_version;
  rec.trial_index = trial_index;
  return rec;
}

void evict_before_run(CacheState c, const Task &task, const std::vector<NDArray> &inputs, const std::vector<NDArray> &outs) {
  if (c == CacheState::kWarm) return;
  if (c == CacheState::kCold) {
    for (const auto &a : inputs) flush_from_cache(a);
    for (const auto &a : outs) flush_from_cache(a);
  } else {
    std::vector<bool> constant(inputs.size(), false);
    for (int i : task.constant_inputs)
      if (i >= 0 && i < static_cast<int>(inputs.size())) constant[i] = true, flush_from_cache(inputs[i]);
    if (c == CacheState::kL3) {
      _mm_mfence();
      // Twice: a non-inclusive L3 (Intel since Skylake-SP) keeps an evicted line that was read again after an
      // eviction, and drops one read once (bench/RESULTS.md, 2026-12-02).
      unsigned sum = 0;
      for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < inputs.size(); i++)
          if (constant[i]) sum += read_lines(inputs[i].raw(), inputs[i].nbytes());
        sum += push_l2_out();
      }
      for (size_t i = 0; i < inputs.size(); i++)
        if (!constant[i]) sum += read_lines(inputs[i].raw(), inputs[i].nbytes());
      for (const auto &a : outs) sum += read_lines(a.raw(), a.nbytes());
      static volatile unsigned sink = 0;
      sink = sink + sum;
    }
  }
  _mm_mfence();
}

double run_after_evicting_ms(const Kernel &k, CacheState c, const Task &task, const std::vector<NDArray> &inputs,
                             std::vector<NDArray> &outs) {
  evict_before_run(c, task, inputs, outs);
  auto t0 = Clock::now();
  k.run(inputs, outs);
  return seconds_since(t0) * 1e3;
}

namespace {

// What a child does. mode 0: measure a candidate; mode 1: compute the reference.
// wait_go (may be null) is called after the check passed and before each of
// `rounds` timing rounds (opt.repeat timed runs each): in a parallel batch it
// blocks until the parent says that nothing else of ours runs any more
// (siblings are done compiling, or timing their own round).
std::string child_work(const Task &task, const MeasureOptions &opt, const Schedule &s, const std::vector<NDArray> &given,
                       const std::vector<NDArray> *reference, const std::string &fault,
                       const std::function<void()> &wait_go = nullptr, int rounds = 1) {
  std::vector<NDArray> repacked;  // given, with the constants a model packs once packed (codegen/prepack.h)
  Writer w;
  ErrorCode code = ErrorCode::kNoError;
  std::string msg;
  std::vector<double> costs;
  std::vector<NDArray> outs;
  double compile_s = 0;
  double build_begin = 0, build_end = 0, timing_begin = 0, timing_end = 0;
  try {
    set_num_threads(std::max(1, task.threads));
    if (fault == "segfault") {
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    if (fault == "hang")
      for (;;) pause();
    if (fault == "compile_error") throw CodegenError("injected compile error");
    auto t0 = Clock::now();
    build_begin = clock_s(t0);
    BuildOptions bo;
    bo.inspect = false;  // features come from the parent's own lowering; JIT only
    bo.runtime_checks = opt.runtime_checks;
    bo.prepacked = prepackable_inputs(s, task.constant_inputs);
    Kernel k = Kernel::build(s, task.target, bo);
    if (!bo.prepacked.empty()) repacked = given;
    for (const auto &p : bo.prepacked) repacked[p.input] = pack_input(given[p.input], p);
    const std::vector<NDArray> &inputs = bo.prepacked.empty() ? given : repacked;
    compile_s = seconds_since(t0);
    if (fault == "runtime_error") throw RuntimeError("injected runtime error");
    outs = k.run(inputs);
    if (fault == "wrong" && !outs.empty() && outs[0].size() > 0) outs[0].set(0, outs[0].get(0) + 1.0);
    if (reference) {
      double worst = 0;
      bool bad = false;
      for (size_t i = 0; i < outs.size(); i++) {
        double err = scaled_max_error(outs[i], (*reference)[i]);
        if (std::isnan(err) || err > opt.rtol + opt.atol) bad = true;
        if (!(err <= worst)) worst = err;
      }
      if (bad) {
        code = ErrorCode::kWrongAnswer;
        msg = "wrong answer: max error " + std::to_string(worst) + " (relative to max |ref|), tolerance " +
              std::to_string(opt.rtol + opt.atol);
      } else {
        build_end = clock_s(Clock::now());
        int number = opt.number;
        for (int round = 0; round < std::max(1, rounds); round++) {
          if (wait_go) wait_go();
          if (round == 0) {
            timing_begin = clock_s(Clock::now());
            for (int i = 0; i < opt.warmup; i++) k.run(inputs, outs);
            if (number <= 0) {
              // Wall time of one run with its eviction: a repeat lasts about min_repeat_ms in every state (an
              // embedding Gather runs in microseconds, and flushing its 94 MB table per run takes ~10 ms).
              auto t1 = Clock::now();
              if (opt.cache == CacheState::kWarm) k.run(inputs, outs);
              else run_after_evicting_ms(k, opt.cache, task, inputs, outs);
              double one_ms = seconds_since(t1) * 1e3;
              number = static_cast<int>(std::ceil(opt.min_repeat_ms / std::max(one_ms, 1e-4)));
              number = std::max(1, std::min(number, opt.max_number));
            }
          }
          for (int r = 0; r < std::max(1, opt.repeat); r++) {
            if (opt.cache != CacheState::kWarm) {
              double total = 0;
              for (int i = 0; i < number; i++) total += run_after_evicting_ms(k, opt.cache, task, inputs, outs);
              costs.push_back(total / number);
              continue;
            }
            auto t1 = Clock::now();
            for (int i = 0; i < number; i++) k.run(inputs, outs);
            costs.push_back(seconds_since(t1) * 1e3 / number);
          }
        }
        timing_end = clock_s(Clock::now());
      }
    }
  } catch (const ScheduleError &e) {
    code = ErrorCode::kInvalidSchedule; msg = e.what();
  } catch (const CodegenError &e) {
    code = ErrorCode::kCompileError; msg = e.what();
  } catch (const RuntimeError &e) {
    code = ErrorCode::kRuntimeError; msg = e.what();
  } catch (const std::exception &e) {
    code = ErrorCode::kUnknown; msg = e.what();
  }
  w.pod<int32_t>(static_cast<int32_t>(code));
  w.pod<double>(compile_s);
  for (double t : {build_begin, build_end, timing_begin, timing_end}) w.pod<double>(t);
  w.str(msg);
  w.pod<uint64_t>(costs.size());
  for (double c : costs) w.pod<double>(c);
  if (!reference && code == ErrorCode::kNoError) {
    w.pod<uint64_t>(outs.size());
    for (const auto &o : outs) w.bytes(o.raw(), static_cast<size_t>(o.nbytes()));
  } else {
    w.pod<uint64_t>(0);
  }
  return w.buf;
}

struct ChildOutcome {
  ErrorCode code = ErrorCode::kNoError;
  std::string msg;
  std::string payload;  // child's message when it exited normally
};

// Maps how a measuring child ended to an error code.
ChildOutcome outcome(rt::ChildExit e, double timeout_s) {
  ChildOutcome res;
  if (e.ok()) {
    res.payload = std::move(e.payload);
    return res;
  }
  res.code = e.timed_out ? ErrorCode::kTimeout : e.signal > 0 ? ErrorCode::kCrash : ErrorCode::kUnknown;
  res.msg = e.timed_out ? e.reason(timeout_s) + "; measuring process killed" : "measuring process " + e.reason(timeout_s);
  return res;
}

// Runs fn in a child with a deadline (rt::run_in_child).
ChildOutcome run_isolated(double timeout_s, const std::function<std::string()> &fn) {
  return outcome(rt::run_in_child(timeout_s, fn), timeout_s);
}

}  // namespace

CacheState parse_cache_state(const std::string &name) {
  for (CacheState c : {CacheState::kWarm, CacheState::kCold, CacheState::kModel, CacheState::kL3})
    if (name == cache_state_name(c)) return c;
  throw Error("unknown cache state '" + name + "': expected warm, cold, model or l3");
}

const char *cache_state_name(CacheState c) {
  switch (c) {
    case CacheState::kWarm: return "warm";
    case CacheState::kCold: return "cold";
    case CacheState::kModel: return "model";
    case CacheState::kL3: return "l3";
  }
  return "?";
}

void Measurer::warm_up() {
  if (warmed_ || !options_.warm_jit) return;
  warmed_ = true;
  try {
    BuildOptions bo;
    bo.runtime_checks = options_.runtime_checks;
    warm_up_jit(task_.target, bo);
  } catch (const Error &) {
    // Only an optimisation: children then initialise the JIT themselves.
  }
}

void finalize_result(const Task &task, MeasureResult &res) {
  if (res.ok() && res.costs_ms.empty()) {
    res.error = ErrorCode::kUnknown;
    res.error_msg = "no timings";
  }
  if (res.ok()) {
    res.median_ms = tuning_log::median_of(res.costs_ms);
    res.gflops = res.median_ms > 0 ? task.flops / (res.median_ms * 1e6) : 0;
  } else {
    res.costs_ms.clear();
  }
}

namespace {
// Measurement data: values in [-1, 1) (integers -1 and 0), except 8-bit
// integers (quantized tensors), which span their whole range so that a wrong
// integer product cannot pass the reference check on zeros.
NDArray measure_input(const Tensor &t, uint64_t seed) {
  const DType d = t.dtype();
  if (d.bits == 8 && d.is_int()) return NDArray::random(t.shape(), d, seed, -128, 128);
  if (d.bits == 8 && d.is_uint()) return NDArray::random(t.shape(), d, seed, 0, 256);
  return NDArray::random(t.shape(), d, seed);
}
}  // namespace

Measurer::Measurer(const Task &task, const MeasureOptions &options, ReferenceCache *references)
    : task_(task), options_(options), references_(references) {
  auto ins = task_.inputs();
  for (size_t i = 0; i < ins.size(); i++) inputs_.push_back(measure_input(ins[i], options_.seed + i));
}

namespace {
// Reads what child_work writes before the outputs: code, compile time, the
// windows, message and costs. r.ok is false when the message was cut short.
void read_result(Reader &r, MeasureResult &res) {
  res.error = static_cast<ErrorCode>(r.pod<int32_t>());
  res.compile_s = r.pod<double>();
  res.build_begin_s = r.pod<double>();
  res.build_end_s = r.pod<double>();
  res.timing_begin_s = r.pod<double>();
  res.timing_end_s = r.pod<double>();
  res.error_msg = r.str();
  uint64_t nc = r.pod<uint64_t>();
  for (uint64_t i = 0; i < nc && r.ok; i++) res.costs_ms.push_back(r.pod<double>());
}
}  // namespace

namespace {
// The schedule of the reference: the task unscheduled (every stage at root, serial, scalar), except that
// float elementwise and broadcast stages are inlined into their consumers, as Halide leaves an unscheduled
// Func. Values are the same (the same operations per element; Halide's CSE shares an inlined value read
// twice), and LLVM compiles one loop nest instead of one per stage: a conv with a 9-op epilogue built in
// 0.33 s instead of 0.9 s. Integer stages stay at root (Halide 14 mis-lowers some inlined integer casts).
Schedule reference_schedule(const Task &task) {
  Schedule s(task.outputs);
  std::vector<std::string> inline_stages;
  for (const StageInfo &st : s.stages()) {
    const bool pointwise = st.tensor.defined() && (st.tensor->tag == "elemwise" || st.tensor->tag == "broadcast");
    if (pointwise && !st.is_output && !st.is_reduction() && st.tensor.dtype().is_float())
      inline_stages.push_back(st.name);
  }
  for (const std::string &name : inline_stages) {
    try {
      s.compute_inline(name);
    } catch (const ScheduleError &) {
      // Stays at root: a stage the schedule cannot inline computes the same values there.
    }
  }
  return s;
}
}  // namespace

rt::Child Measurer::start_reference() {
  if (reference_) return rt::Child();
  if (references_ && (reference_ = references_->find(ReferenceCache::key(task_, options_.seed)))) return rt::Child();
  warm_up();
  Schedule s = reference_schedule(task_);
  return rt::Child::spawn([&](int fd) { rt::write_all(fd, child_work(task_, options_, s, inputs_, nullptr, "")); });
}

const std::vector<NDArray> &Measurer::finish_reference(rt::Child &child) {
  if (reference_) return *reference_;
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options_.reference_timeout_s));
  bool finished = child.read_until(deadline);
  ChildOutcome c = outcome(child.reap(!finished), options_.reference_timeout_s);
  if (c.code != ErrorCode::kNoError)
    throw MeasureError("reference of task '" + task_.name + "' failed: " + c.msg);
  Reader r{c.payload};
  MeasureResult head;
  read_result(r, head);
  if (!r.ok || !head.ok())
    throw MeasureError("reference of task '" + task_.name + "' failed: " + (r.ok ? head.error_msg : "truncated result"));
  uint64_t nouts = r.pod<uint64_t>();
  if (nouts != task_.outputs.size()) throw MeasureError("reference of task '" + task_.name + "': bad output count");
  std::vector<NDArray> outs;
  for (const auto &o : task_.outputs) {
    NDArray a(o.shape(), o.dtype());
    std::string b = r.str();
    if (!r.ok || static_cast<int64_t>(b.size()) != a.nbytes())
      throw MeasureError("reference of task '" + task_.name + "': truncated output " + o.name());
    std::memcpy(a.raw(), b.data(), b.size());
    outs.push_back(std::move(a));
  }
  reference_ = std::make_shared<const std::vector<NDArray>>(std::move(outs));
  if (references_) references_->insert(ReferenceCache::key(task_, options_.seed), reference_);
  return *reference_;
}

const std::vector<NDArray> &Measurer::reference() {
  rt::Child c = start_reference();
  return finish_reference(c);
}

void prefill_references(const std::vector<Task> &tasks, const MeasureOptions &options, ReferenceCache &cache,
                        const std::function<bool()> &stop) {
  struct Running {
    std::unique_ptr<Measurer> m;
    rt::Child child;
  };
  std::deque<Running> running;  // oldest first: references of similar tasks take similar times
  auto finish_oldest = [&] {
    Running &r = running.front();
    try {
      r.m->finish_reference(r.child);
    } catch (const MeasureError &) {
      // Left out: the task's own Measurer computes it again and raises the error where it is handled.
    }
    running.pop_front();
  };
  const size_t parallel = static_cast<size_t>(std::max(1, options.parallel_builds));
  std::set<std::string> started;  // a workload listed twice is computed once
  for (const Task &t : tasks) {
    if (stop && stop()) break;
    const std::string key = ReferenceCache::key(t, options.seed);
    if (!started.insert(key).second || cache.find(key)) continue;
    if (running.size() >= parallel) finish_oldest();
    Running r{std::make_unique<Measurer>(t, options, &cache), rt::Child()};
    r.child = r.m->start_reference();
    running.push_back(std::move(r));
  }
  while (!running.empty()) finish_oldest();
}

namespace {

// Fills res from a child's outcome (error code, or its message) and finalises it.
void finish_result(const Task &task, const ChildOutcome &c, MeasureResult &res) {
  if (c.code != ErrorCode::kNoError) {
    res.error = c.code;
    res.error_msg = c.msg;
  } else {
    Reader r{c.payload};
    read_result(r, res);
    if (!r.ok) {
      res.error = ErrorCode::kUnknown;
      res.error_msg = "truncated result from the measuring process";
      res.costs_ms.clear();
    }
  }
}


// Replays the steps in the parent: the schedule, or res set to kInvalidSchedule.
std::unique_ptr<Schedule> prepare(const Task &task, const MeasureInput &in, MeasureResult &res) {
  res.median_ms = std::numeric_limits<double>::infinity();
  try {
    return std::make_unique<Schedule>(replay(task.outputs, in.steps));
  } catch (const ScheduleError &e) {
    res.error = ErrorCode::kInvalidSchedule;
    res.error_msg = e.what();
  } catch (const Error &e) {
    res.error = ErrorCode::kInvalidSchedule;
    res.error_msg = e.what();
  }
  return nullptr;
}

// One child of a parallel group. Protocol on its result pipe: the child writes
// 'R' when its candidate compiled and passed the check, then blocks on its go
// pipe; the parent writes 'G' when the child may time (nothing else of ours
// runs then); the child finally writes 'F' + its message and exits. A child
// that fails before timing writes 'F' + message at once.
struct GroupChild {
  size_t index = 0;
  rt::Child child;
  int gofd = -1;
  Clock::time_point start;
  double used_s = 0;          // build + check time, counted against timeout_s
  enum State { kBuilding, kReady, kDone } state = kBuilding;
  bool timed_out = false;
};

void close_fd(int &fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

MeasureResult Measurer::measure(const MeasureInput &in) {
  auto t0 = Clock::now();
  MeasureResult res;
  std::string fault = in.test_fault.empty() ? options_.test_fault : in.test_fault;
  const std::vector<NDArray> &ref = reference();
  std::unique_ptr<Schedule> s = prepare(task_, in, res);
  if (s) {
    ChildOutcome c = run_isolated(options_.timeout_s, [&] { return child_work(task_, options_, *s, inputs_, &ref, fault); });
    finish_result(task_, c, res);
  }
  finalize_result(task_, res);
  res.wall_s = seconds_since(t0);
  return res;
}

std::vector<MeasureResult> Measurer::measure_batch(const std::vector<MeasureInput> &ins, int rounds) {
  std::vector<MeasureResult> out(ins.size());
  const size_t builders = static_cast<size_t>(std::max(1, options_.parallel_builds));
  rounds = std::max(1, rounds);
  if ((builders <= 1 || ins.size() <= 1) && rounds == 1) {
    for (size_t i = 0; i < ins.size(); i++) out[i] = measure(ins[i]);
    return out;
  }
  const size_t alive_cap = std::max(builders, static_cast<size_t>(std::max(1, options_.max_alive)));
  const std::vector<NDArray> &ref = reference();
  auto t0 = Clock::now();
  std::vector<GroupChild> kids;  // a child still alive when this throws is killed by ~Child
  kids.reserve(ins.size());      // never reallocates: the poll loop keeps pointers into it
  struct CloseGoPipes {
    std::vector<GroupChild> &k;
    ~CloseGoPipes() {
      for (auto &c : k) close_fd(c.gofd);
    }
  } close_go{kids};
  size_t next = 0;
  auto count = [&](GroupChild::State st) {
    return static_cast<size_t>(std::count_if(kids.begin(), kids.end(), [&](const GroupChild &c) { return c.state == st; }));
  };

  // Forks the child of input i (or records its invalid schedule without one).
  auto spawn = [&](size_t i) {
    std::unique_ptr<Schedule> sched = prepare(task_, ins[i], out[i]);
    if (!sched) return;
    int gp[2];
    if (pipe(gp) != 0) throw MeasureError(std::string("pipe() failed: ") + std::strerror(errno));
    const std::string fault = ins[i].test_fault.empty() ? options_.test_fault : ins[i].test_fault;
    GroupChild c;
    try {
      c.child = rt::Child::spawn([&](int rfd) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (auto &k : kids) {  // siblings' pipe ends (-1 once a sibling is reaped)
          if (k.child.fd() >= 0) close(k.child.fd());
          close_fd(k.gofd);
        }
        close(gp[1]);
        bool first = true;
        std::string msg = child_work(task_, options_, *sched, inputs_, &ref, fault, [&] {
          rt::write_all(rfd, first ? "R" : "T");  // ready to time / a round timed
          first = false;
          char go = 0;
          ssize_t n;
          while ((n = read(gp[0], &go, 1)) < 0 && errno == EINTR) {
          }
          if (n != 1 || go != 'G') _exit(4);
        }, rounds);
        rt::write_all(rfd, "F" + msg);
      });
    } catch (...) {
      close(gp[0]);
      close(gp[1]);
      throw;
    }
    close(gp[0]);
    c.index = i;
    c.gofd = gp[1];
    c.start = Clock::now();
    kids.push_back(std::move(c));
  };
  auto finish_child = [&](GroupChild &c) {
    close_fd(c.gofd);
    rt::ChildExit e = c.child.reap(c.timed_out);
    const bool complete = !e.payload.empty() && e.payload[0] == 'F';
    if (complete) e.payload.erase(0, 1);
    ChildOutcome oc = outcome(std::move(e), options_.timeout_s);
    if (oc.code == ErrorCode::kNoError && !complete) {
      oc.code = ErrorCode::kUnknown;
      oc.msg = "truncated result from the measuring process";
    }
    finish_result(task_, oc, out[c.index]);
    c.state = GroupChild::kDone;
  };
  // Waits for building children until one becomes ready ('R'), ends, or runs out of time.
  const auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
  auto wait_for_builders = [&] {
    std::vector<pollfd> pfds;
    std::vector<GroupChild *> who;
    auto now = Clock::now();
    double wait_ms = 1e9;
    for (auto &c : kids) {
      if (c.state != GroupChild::kBuilding) continue;
      double left = std::chrono::duration<double, std::milli>(c.start + timeout - now).count();
      if (left <= 0) {
        c.timed_out = true;
        finish_child(c);
        continue;
      }
      wait_ms = std::min(wait_ms, left);
      pfds.push_back(pollfd{c.child.fd(), POLLIN, 0});
      who.push_back(&c);
    }
    if (pfds.empty()) return;
    int r = poll(pfds.data(), pfds.size(), static_cast<int>(wait_ms) + 1);
    if (r < 0 && errno != EINTR) throw MeasureError(std::string("poll() failed: ") + std::strerror(errno));
    if (r <= 0) return;
    for (size_t k = 0; k < pfds.size(); k++) {
      if (!pfds[k].revents) continue;
      GroupChild &c = *who[k];
      bool more = c.child.read_some();
      if (!c.child.received().empty() && c.child.received()[0] == 'R') {
        c.child.consume(1);
        c.state = GroupChild::kReady;
        c.used_s = seconds_since(c.start);
      } else if (!more) {
        finish_child(c);
      }
    }
  };
  // Waits for a child's 'T' (its round timed) until the deadline: false when it ends or runs out of time first.
  auto round_timed = [&](GroupChild &c, Clock::time_point deadline) {
    while (c.child.received().empty()) {
      double left = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
      if (left <= 0) {
        c.timed_out = true;
        return false;
      }
      pollfd p{c.child.fd(), POLLIN, 0};
      int r = poll(&p, 1, static_cast<int>(left) + 1);
      if (r < 0 && errno != EINTR) throw MeasureError(std::string("poll() failed: ") + std::strerror(errno));
      if (r > 0 && !c.child.read_some()) return false;
    }
    if (c.child.received()[0] != 'T') return false;
    c.child.consume(1);
    return true;
  };
  // Times the ready children strictly one at a time, in input order, `rounds` times over (A B C A B C).
  auto time_ready = [&] {
    for (int round = 0; round < rounds; round++) {
      const bool last = round + 1 == rounds;
      for (auto &c : kids) {
        if (c.state != GroupChild::kReady) continue;
        auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::max(0.0, options_.timeout_s - c.used_s)));
        rt::write_all(c.gofd, "G");
        if (!last) {
          auto t = Clock::now();
          if (round_timed(c, deadline)) {
            c.used_s += seconds_since(t);
            continue;
          }
          if (!c.timed_out) c.timed_out = !c.child.read_until(deadline);  // ended: read what it sent
        } else {
          close_fd(c.gofd);
          c.timed_out = !c.child.read_until(deadline);
        }
        finish_child(c);
      }
    }
  };
  // Keep `builders` children compiling while fewer than alive_cap are alive; time the
  // ready ones only when none is compiling (and no more may start).
  for (;;) {
    const size_t building = count(GroupChild::kBuilding), ready = count(GroupChild::kReady);
    if (next < ins.size() && building < builders && building + ready < alive_cap) {
      spawn(next++);
    } else if (building > 0) {
      wait_for_builders();
    } else if (ready > 0) {
      time_ready();
    } else {
      break;
    }
  }
  double per_input_wall = seconds_since(t0) / static_cast<double>(ins.size());
  for (auto &r : out) {
    finalize_result(task_, r);
    r.wall_s = per_input_wall;
  }
  return out;
}

}  // namespace autotune
}  // namespace tetune
