#include "autotune/measure/measure.h"

#include <immintrin.h>

#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <sys/prctl.h>
#include <limits>

#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "te/errors.h"

namespace tetune {
namespace autotune {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

void write_all(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    off += static_cast<size_t>(w);
  }
}

// Evicts the arrays' cache lines from every cache level (cold-cache timing).
void flush_from_cache(const std::vector<NDArray> &arrays) {
  for (const auto &a : arrays) {
    const char *p = static_cast<const char *>(a.raw());
    for (int64_t off = 0; off < a.nbytes(); off += 64) _mm_clflush(p + off);
  }
  _mm_mfence();
}

// What a child does. mode 0: measure a candidate; mode 1: compute the reference.
// wait_go (may be null) is called after the check passed and before timing:
// in a parallel batch it blocks until the parent says that nothing else of
// ours runs any more (siblings are done compiling).
std::string child_work(const Task &task, const MeasureOptions &opt, const Schedule &s, const std::vector<NDArray> &inputs,
                       const std::vector<NDArray> *reference, const std::string &fault,
                       const std::function<void()> &wait_go = nullptr) {
  Writer w;
  ErrorCode code = ErrorCode::kNoError;
  std::string msg;
  std::vector<double> costs;
  std::vector<NDArray> outs;
  double compile_s = 0;
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
    BuildOptions bo;
    bo.inspect = false;  // features come from the parent's own lowering; JIT only
    bo.runtime_checks = opt.runtime_checks;
    Kernel k = Kernel::build(s, task.target, bo);
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
        if (wait_go) wait_go();
        for (int i = 0; i < opt.warmup; i++) k.run(inputs, outs);
        int number = opt.number;
        if (number <= 0) {
          auto t1 = Clock::now();
          k.run(inputs, outs);
          double one_ms = seconds_since(t1) * 1e3;
          number = static_cast<int>(std::ceil(opt.min_repeat_ms / std::max(one_ms, 1e-4)));
          number = std::max(1, std::min(number, opt.max_number));
        }
        for (int r = 0; r < std::max(1, opt.repeat); r++) {
          if (opt.flush_cache) {
            double total = 0;
            for (int i = 0; i < number; i++) {
              flush_from_cache(inputs);
              flush_from_cache(outs);
              auto t1 = Clock::now();
              k.run(inputs, outs);
              total += seconds_since(t1);
            }
            costs.push_back(total * 1e3 / number);
            continue;
          }
          auto t1 = Clock::now();
          for (int i = 0; i < number; i++) k.run(inputs, outs);
          costs.push_back(seconds_since(t1) * 1e3 / number);
        }
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

}  // namespace

// Kills (if timed_out) and reaps pid; maps its fate to an error code.
ChildOutcome reap_child(pid_t pid, bool timed_out, double timeout_s, std::string payload);

namespace {

// Forks, runs fn in the child, collects its message with a deadline.
template <typename Fn>
ChildOutcome run_in_child(double timeout_s, Fn fn) {
  int fds[2];
  if (pipe(fds) != 0) throw MeasureError(std::string("pipe() failed: ") + std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw MeasureError(std::string("fork() failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = fn();
    } catch (...) {
      _exit(3);
    }
    write_all(fds[1], out);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  ChildOutcome res;
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  bool timed_out = false;
  char chunk[1 << 16];
  for (;;) {
    double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) { timed_out = true; break; }
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min(left_ms, 1e9)) + 1);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (r == 0) continue;
    ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0) break;  // EOF
    res.payload.append(chunk, static_cast<size_t>(n));
  }
  close(fds[0]);
  return reap_child(pid, timed_out, timeout_s, std::move(res.payload));
}

}  // namespace

ChildOutcome reap_child(pid_t pid, bool timed_out, double timeout_s, std::string payload) {
  ChildOutcome res;
  res.payload = std::move(payload);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    res.code = ErrorCode::kTimeout;
    res.msg = "timeout: no result after " + std::to_string(timeout_s) + " s; measuring process killed";
    res.payload.clear();
  } else if (WIFSIGNALED(status)) {
    res.code = ErrorCode::kCrash;
    res.msg = std::string("measuring process died of signal ") + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ")";
    res.payload.clear();
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    res.code = ErrorCode::kUnknown;
    res.msg = "measuring process exited with status " + std::to_string(WEXITSTATUS(status));
    res.payload.clear();
  }
  return res;
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
    res.median_ms = median_of(res.costs_ms);
    res.gflops = res.median_ms > 0 ? task.flops / (res.median_ms * 1e6) : 0;
  } else {
    res.costs_ms.clear();
  }
}

Measurer::Measurer(const Task &task, const MeasureOptions &options) : task_(task), options_(options) {
  auto ins = task_.inputs();
  for (size_t i = 0; i < ins.size(); i++)
    inputs_.push_back(NDArray::random(ins[i].shape(), ins[i].dtype(), options_.seed + i));
}

const std::vector<NDArray> &Measurer::reference() {
  if (have_reference_) return reference_;
  warm_up();
  Schedule s(task_.outputs);
  MeasureOptions opt = options_;
  ChildOutcome c = run_in_child(options_.reference_timeout_s,
                                [&] { return child_work(task_, opt, s, inputs_, nullptr, ""); });
  if (c.code != ErrorCode::kNoError)
    throw MeasureError("reference of task '" + task_.name + "' failed: " + c.msg);
  Reader r{c.payload};
  auto code = static_cast<ErrorCode>(r.pod<int32_t>());
  r.pod<double>();
  std::string msg = r.str();
  uint64_t nc = r.pod<uint64_t>();
  for (uint64_t i = 0; i < nc; i++) r.pod<double>();
  if (!r.ok || code != ErrorCode::kNoError)
    throw MeasureError("reference of task '" + task_.name + "' failed: " + (r.ok ? msg : "truncated result"));
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
  reference_ = std::move(outs);
  have_reference_ = true;
  return reference_;
}

namespace {

// Fills res from a child's outcome (error code, or its message) and finalises it.
void finish_result(const Task &task, const ChildOutcome &c, MeasureResult &res) {
  if (c.code != ErrorCode::kNoError) {
    res.error = c.code;
    res.error_msg = c.msg;
  } else {
    Reader r{c.payload};
    res.error = static_cast<ErrorCode>(r.pod<int32_t>());
    res.compile_s = r.pod<double>();
    res.error_msg = r.str();
    uint64_t nc = r.pod<uint64_t>();
    for (uint64_t i = 0; i < nc && r.ok; i++) res.costs_ms.push_back(r.pod<double>());
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
  pid_t pid = -1;
  int rfd = -1, gofd = -1;
  Clock::time_point start;
  double used_s = 0;          // build + check time, counted against timeout_s
  std::string buf;
  enum State { kBuilding, kReady, kDone } state = kBuilding;
  bool timed_out = false;
};

void close_fd(int &fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Reads what is available on c.rfd; returns false at EOF / error.
bool read_some(GroupChild &c) {
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = read(c.rfd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    c.buf.append(chunk, static_cast<size_t>(n));
    return true;
  }
}

}  // namespace

MeasureResult Measurer::measure(const MeasureInput &in) {
  auto t0 = Clock::now();
  MeasureResult res;
  std::string fault = in.test_fault.empty() ? options_.test_fault : in.test_fault;
  const std::vector<NDArray> &ref = reference();
  std::unique_ptr<Schedule> s = prepare(task_, in, res);
  if (s) {
    ChildOutcome c = run_in_child(options_.timeout_s, [&] { return child_work(task_, options_, *s, inputs_, &ref, fault); });
    finish_result(task_, c, res);
  }
  finalize_result(task_, res);
  res.wall_s = seconds_since(t0);
  return res;
}

std::vector<MeasureResult> Measurer::measure_batch(const std::vector<MeasureInput> &ins) {
  std::vector<MeasureResult> out(ins.size());
  const size_t group = static_cast<size_t>(std::max(1, options_.parallel_builds));
  if (group <= 1 || ins.size() <= 1) {
    for (size_t i = 0; i < ins.size(); i++) out[i] = measure(ins[i]);
    return out;
  }
  const std::vector<NDArray> &ref = reference();
  for (size_t g0 = 0; g0 < ins.size(); g0 += group) {
    const size_t g1 = std::min(ins.size(), g0 + group);
    auto tg = Clock::now();
    std::vector<std::unique_ptr<Schedule>> scheds(g1 - g0);
    std::vector<GroupChild> kids;
    kids.reserve(g1 - g0);
    // Kill and reap every child still alive if anything below throws.
    struct Guard {
      std::vector<GroupChild> &k;
      ~Guard() {
        for (auto &c : k) {
          close_fd(c.rfd);
          close_fd(c.gofd);
          if (c.pid > 0) {
            kill(c.pid, SIGKILL);
            while (waitpid(c.pid, nullptr, 0) < 0 && errno == EINTR) {
            }
            c.pid = -1;
          }
        }
      }
    } guard{kids};
    for (size_t i = g0; i < g1; i++) {
      scheds[i - g0] = prepare(task_, ins[i], out[i]);
      if (!scheds[i - g0]) continue;
      int rp[2], gp[2];
      if (pipe(rp) != 0) throw MeasureError(std::string("pipe() failed: ") + std::strerror(errno));
      if (pipe(gp) != 0) {
        close(rp[0]);
        close(rp[1]);
        throw MeasureError(std::string("pipe() failed: ") + std::strerror(errno));
      }
      std::fflush(nullptr);
      pid_t pid = fork();
      if (pid < 0) {
        close(rp[0]); close(rp[1]); close(gp[0]); close(gp[1]);
        throw MeasureError(std::string("fork() failed: ") + std::strerror(errno));
      }
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (auto &c : kids) {  // siblings' pipe ends
          close_fd(c.rfd);
          close_fd(c.gofd);
        }
        close(rp[0]);
        close(gp[1]);
        const std::string fault = ins[i].test_fault.empty() ? options_.test_fault : ins[i].test_fault;
        std::string msg;
        try {
          msg = child_work(task_, options_, *scheds[i - g0], inputs_, &ref, fault, [&] {
            write_all(rp[1], "R");
            char go = 0;
            ssize_t n;
            while ((n = read(gp[0], &go, 1)) < 0 && errno == EINTR) {
            }
            if (n != 1 || go != 'G') _exit(4);
          });
        } catch (...) {
          _exit(3);
        }
        write_all(rp[1], "F" + msg);
        close(rp[1]);
        _exit(0);
      }
      close(rp[1]);
      close(gp[0]);
      GroupChild c;
      c.index = i;
      c.pid = pid;
      c.rfd = rp[0];
      c.gofd = gp[1];
      c.start = Clock::now();
      kids.push_back(std::move(c));
    }
    auto finish_child = [&](GroupChild &c) {
      close_fd(c.rfd);
      close_fd(c.gofd);
      std::string payload;
      if (!c.buf.empty() && c.buf[0] == 'F') payload = c.buf.substr(1);
      ChildOutcome oc = reap_child(c.pid, c.timed_out, options_.timeout_s, std::move(payload));
      c.pid = -1;
      if (oc.code == ErrorCode::kNoError && (c.buf.empty() || c.buf[0] != 'F')) {
        oc.code = ErrorCode::kUnknown;
        oc.msg = "truncated result from the measuring process";
      }
      finish_result(task_, oc, out[c.index]);
      c.state = GroupChild::kDone;
    };
    // Phase 1: all children build and check in parallel; each ends ready ('R') or done.
    auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
    for (;;) {
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
        pfds.push_back(pollfd{c.rfd, POLLIN, 0});
        who.push_back(&c);
      }
      if (pfds.empty()) break;
      int r = poll(pfds.data(), pfds.size(), static_cast<int>(wait_ms) + 1);
      if (r < 0 && errno != EINTR) throw MeasureError(std::string("poll() failed: ") + std::strerror(errno));
      if (r <= 0) continue;
      for (size_t k = 0; k < pfds.size(); k++) {
        if (!pfds[k].revents) continue;
        GroupChild &c = *who[k];
        bool more = read_some(c);
        if (!c.buf.empty() && c.buf[0] == 'R') {
          c.buf.erase(0, 1);
          c.state = GroupChild::kReady;
          c.used_s = seconds_since(c.start);
        } else if (!more) {
          finish_child(c);
        }
      }
    }
    // Phase 2: time the ready children strictly one at a time.
    for (auto &c : kids) {
      if (c.state != GroupChild::kReady) continue;
      auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(std::max(0.0, options_.timeout_s - c.used_s)));
      write_all(c.gofd, "G");
      close_fd(c.gofd);
      for (;;) {
        double left = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
        if (left <= 0) {
          c.timed_out = true;
          break;
        }
        pollfd p{c.rfd, POLLIN, 0};
        int r = poll(&p, 1, static_cast<int>(std::min(left, 1e9)) + 1);
        if (r < 0 && errno != EINTR) throw MeasureError(std::string("poll() failed: ") + std::strerror(errno));
        if (r <= 0) continue;
        if (!read_some(c)) break;
      }
      finish_child(c);
    }
    double group_wall = seconds_since(tg) / static_cast<double>(g1 - g0);
    for (size_t i = g0; i < g1; i++) {
      finalize_result(task_, out[i]);
      out[i].wall_s = group_wall;
    }
  }
  return out;
}

}  // namespace autotune
}  // namespace tetune
