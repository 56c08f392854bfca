#include "autotune/measure/measure.h"

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

double scaled_max_error(const NDArray &out, const NDArray &ref) {
  double scale = 0;
  for (int64_t i = 0; i < ref.size(); i++) scale = std::max(scale, std::fabs(ref.get(i)));
  return max_abs_diff(out, ref) / std::max(scale, 1e-30);
}

// What a child does. mode 0: measure a candidate; mode 1: compute the reference.
std::string child_work(const Task &task, const MeasureOptions &opt, const Schedule &s, const std::vector<NDArray> &inputs,
                       const std::vector<NDArray> *reference, const std::string &fault) {
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

}  // namespace

void Measurer::warm_up() {
  if (warmed_ || !options_.warm_jit) return;
  warmed_ = true;
  try {
    warm_up_jit(task_.target);
  } catch (const Error &) {
    // Only an optimisation: children then initialise the JIT themselves.
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

MeasureResult Measurer::measure(const MeasureInput &in) {
  auto t0 = Clock::now();
  MeasureResult res;
  res.median_ms = std::numeric_limits<double>::infinity();
  std::string fault = in.test_fault.empty() ? options_.test_fault : in.test_fault;
  const std::vector<NDArray> &ref = reference();
  std::unique_ptr<Schedule> s;
  try {
    s = std::make_unique<Schedule>(replay(task_.outputs, in.steps));
  } catch (const ScheduleError &e) {
    res.error = ErrorCode::kInvalidSchedule;
    res.error_msg = e.what();
  } catch (const Error &e) {
    res.error = ErrorCode::kInvalidSchedule;
    res.error_msg = e.what();
  }
  if (s) {
    ChildOutcome c = run_in_child(options_.timeout_s, [&] { return child_work(task_, options_, *s, inputs_, &ref, fault); });
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
  if (res.ok() && res.costs_ms.empty()) {
    res.error = ErrorCode::kUnknown;
    res.error_msg = "no timings";
  }
  if (res.ok()) {
    res.median_ms = median_of(res.costs_ms);
    res.gflops = res.median_ms > 0 ? task_.flops / (res.median_ms * 1e6) : 0;
  } else {
    res.costs_ms.clear();
  }
  res.wall_s = seconds_since(t0);
  return res;
}

std::vector<MeasureResult> Measurer::measure_batch(const std::vector<MeasureInput> &ins) {
  std::vector<MeasureResult> out;
  out.reserve(ins.size());
  for (const auto &in : ins) out.push_back(measure(in));
  return out;
}

}  // namespace autotune
}  // namespace tetune
