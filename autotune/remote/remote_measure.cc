#include "autotune/remote/remote_measure.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codegen/kernel.h"
#include "codegen/kernel_library.h"
#include "codegen/prepack.h"
#include "runtime/io.h"
#include "schedule/trace.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {

using tuning_log::ErrorCode;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool is_file(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}


std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

MeasureResult failed(ErrorCode code, const std::string &msg) {
  MeasureResult r;
  r.error = code;
  r.error_msg = msg;
  r.median_ms = std::numeric_limits<double>::infinity();
  return r;
}

}  // namespace

std::string find_measure_runner(const std::string &configured) {
  if (!configured.empty()) return configured;
  if (const char *e = std::getenv("TETUNE_MEASURE_RUNNER")) return e;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    std::string self(buf, static_cast<size_t>(n));
    std::string dir = self.substr(0, self.rfind('/'));
    for (const char *rel : {"/tetune_measure_runner", "/../runtime/tetune_measure_runner", "/../../runtime/tetune_measure_runner"})
      if (is_file(dir + rel)) return dir + rel;
  }
  std::string out;
  if (run_shell("command -v tetune_measure_runner", &out) == 0 && !out.empty()) return out.substr(0, out.find('\n'));
  return "";
}

struct RemoteMeasurer::Impl {
  Task task;
  MeasureOptions opt;
  RemoteOptions remote;
  std::string runner, root;
  std::string runtime_object;  // Halide runtime for task.target, under root
  bool own_root = false;
  int batches = 0;
  std::unique_ptr<Measurer> reference;  // host CPU: inputs + reference outputs
  tuning_log::TargetInfo target;
  std::string device;

  // A fresh batch directory with a build/ subdirectory.
  std::string new_batch_dir() {
    std::string dir = root + "/batch_" + std::to_string(batches++);
    if (::mkdir(dir.c_str(), 0755) != 0 || ::mkdir((dir + "/build").c_str(), 0755) != 0)
      throw MeasureError("remote measurement: cannot create '" + dir + "/build': " + std::strerror(errno));
    return dir;
  }

  // dir/packed_<input>_<axis>x<factor>.npy: the reference input packed as p says, written once per batch.
  std::string packed_file(const std::string &dir, const PrepackedInput &p) {
    const std::string name = "packed_" + std::to_string(p.input) + "_" + std::to_string(p.axis) + "x" +
                             std::to_string(p.factor) + ".npy";
    if (!is_file(dir + "/" + name)) rt::write_npy_file(dir + "/" + name, pack_input(reference->inputs()[p.input], p));
    return name;
  }

  // Links the compiled kernels of dir/build into a batch, runs the command, returns the parsed results.json;
  // kernel_inputs: kernel -> {input index: file} (measure_runner.h).
  nlohmann::json run(const std::string &dir, const std::vector<LibraryKernel> &lib, bool with_data,
                     const nlohmann::json &kernel_inputs = nlohmann::json::object()) {
    if (runtime_object.empty()) {  // the same for every batch of this target: compiled once
      runtime_object = root + "/halide_runtime.o";
      compile_runtime(runtime_object, task.target);
    }
    link_kernel_library(lib, runtime_object, dir + "/build", dir + "/batch.so");
    nlohmann::json b = {{"format", "tetune-measure-batch-1"},
                        {"library", "batch.so"},
                        {"gpu", task.target.is_gpu()},
                        {"threads", std::max(1, task.threads)},
                        {"warmup", opt.warmup},
                        {"repeat", opt.repeat},
                        {"min_repeat_ms", opt.min_repeat_ms},
                        {"max_number", opt.max_number},
                        {"tolerance", opt.rtol + opt.atol},
                        {"timeout_s", opt.timeout_s},
                        {"inputs", nlohmann::json::array()},
                        {"references", nlohmann::json::array()},
                        {"kernels", nlohmann::json::array()}};
    if (with_data) {
      const auto &ref = reference->reference();
      for (size_t i = 0; i < reference->inputs().size(); i++) {
        rt::write_npy_file(dir + "/in_" + std::to_string(i) + ".npy", reference->inputs()[i]);
        b["inputs"].push_back("in_" + std::to_string(i) + ".npy");
      }
      for (size_t i = 0; i < ref.size(); i++) {
        rt::write_npy_file(dir + "/ref_" + std::to_string(i) + ".npy", ref[i]);
        b["references"].push_back("ref_" + std::to_string(i) + ".npy");
      }
    }
    for (const auto &k : lib) b["kernels"].push_back(k.name);
    if (!kernel_inputs.empty()) b["kernel_inputs"] = kernel_inputs;
    {
      std::ofstream f(dir + "/batch.json");
      f << b.dump(1) << "\n";
      if (!f) throw MeasureError("remote measurement: cannot write '" + dir + "/batch.json'");
    }
    std::string cmd = replace_all(replace_all(remote.command, "{dir}", shell_quote(dir)), "{runner}", shell_quote(runner));
    std::string out;
    int rc = run_shell(cmd, &out);
    std::string results_path = dir + "/results.json";
    if (rc != 0 || !is_file(results_path))
      throw MeasureError("remote measurement: `" + cmd + "` " +
                         (rc != 0 ? "exited with status " + std::to_string(rc) : std::string("left no results.json")) +
                         ":\n" + out.substr(0, 4000));
    nlohmann::json r;
    try {
      r = nlohmann::json::parse(rt::read_file_bytes(results_path));
      if (r.at("format").get<std::string>() != "tetune-measure-results-1") throw MeasureError(results_path + ": unknown format");
      r.at("results");
    } catch (const nlohmann::json::exception &e) {
      throw MeasureError(results_path + ": malformed results: " + e.what());
    } catch (const ParseError &e) {
      throw MeasureError(std::string("remote measurement: ") + e.what());
    }
    if (!remote.keep) run_shell("rm -rf " + shell_quote(dir), &out);
    return r;
  }
};

RemoteMeasurer::RemoteMeasurer(const Task &task, const MeasureOptions &options, const RemoteOptions &remote)
    : impl_(new Impl) {
  Impl &im = *impl_;
  im.task = task;
  im.opt = options;
  im.remote = remote;
  im.runner = find_measure_runner(remote.runner);
  if (im.runner.empty() && remote.command.find("{runner}") != std::string::npos)
    throw MeasureError("remote measurement: tetune_measure_runner not found (set RemoteOptions::runner or $TETUNE_MEASURE_RUNNER)");
  if (remote.work_dir.empty()) {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/tetune_remote_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) throw MeasureError("remote measurement: cannot create a directory from " + tmpl);
    im.root = buf.data();
    im.own_root = true;
  } else {
    im.root = remote.work_dir;
    ::mkdir(im.root.c_str(), 0755);
  }
  Task host = task;
  host.target = Target{};  // the reference runs on this machine's CPU
  im.reference = std::make_unique<Measurer>(host, options);
  try {
    nlohmann::json probe = im.run(im.new_batch_dir(), {}, false);
    im.device = probe.value("device", std::string());
    im.target = tuning_log::target_info_from_cpuinfo(probe.value("cpuinfo", std::string()), std::max(1, task.threads),
                                                     tuning_log::kDefaultLibraryVersions);
  } catch (const CodegenError &e) {
    throw MeasureError(std::string("remote measurement: building the probe batch failed: ") + e.what());
  }
  if (task.target.is_gpu()) {
    im.target.kind = "cuda";
    im.target.device = im.device;
  }
}

RemoteMeasurer::~RemoteMeasurer() {
  if (impl_ && impl_->own_root && !impl_->remote.keep) {
    std::string out;
    run_shell("rm -rf " + shell_quote(impl_->root), &out);
  }
}

const tuning_log::TargetInfo &RemoteMeasurer::target_info() const { return impl_->target; }
const std::string &RemoteMeasurer::device() const { return impl_->device; }

std::vector<MeasureResult> RemoteMeasurer::measure_batch(const std::vector<MeasureInput> &ins) {
  Impl &im = *impl_;
  auto t0 = Clock::now();
  std::vector<MeasureResult> res(ins.size());
  std::vector<LibraryKernel> kernels;
  std::vector<size_t> where;
  nlohmann::json kernel_inputs = nlohmann::json::object();
  std::string dir = im.new_batch_dir();
  int nargs = static_cast<int>(im.task.inputs().size() + im.task.outputs.size());
  for (size_t i = 0; i < ins.size(); i++) {  // one object per candidate: a bad schedule fails alone
    try {
      Schedule s = replay(im.task.outputs, ins[i].steps);
      std::string name = "c" + std::to_string(i), obj = dir + "/build/" + name;
      const std::vector<PrepackedInput> packed = prepackable_inputs(s, im.task.constant_inputs);
      compile_object(s, obj, name, im.task.target, /*no_runtime=*/true, packed);
      for (const PrepackedInput &p : packed) kernel_inputs[name][std::to_string(p.input)] = im.packed_file(dir, p);
      kernels.push_back({name, nargs, obj + ".o"});
      where.push_back(i);
    } catch (const ScheduleError &e) {
      res[i] = failed(ErrorCode::kInvalidSchedule, e.what());
    } catch (const CodegenError &e) {
      res[i] = failed(ErrorCode::kCompileError, e.what());
    }
  }
  if (!kernels.empty()) {
    nlohmann::json r = im.run(dir, kernels, true, kernel_inputs);
    std::map<std::string, const nlohmann::json *> by_kernel;
    for (const auto &x : r.at("results")) by_kernel[x.value("kernel", std::string())] = &x;
    for (size_t k = 0; k < kernels.size(); k++) {
      MeasureResult &m = res[where[k]];
      auto it = by_kernel.find(kernels[k].name);
      if (it == by_kernel.end()) {
        m = failed(ErrorCode::kUnknown, "remote measurement: no result for kernel " + kernels[k].name);
        continue;
      }
      const nlohmann::json &x = *it->second;
      int code = x.value("error_code", static_cast<int>(ErrorCode::kUnknown));
      m.error = static_cast<ErrorCode>(code);
      m.error_msg = x.value("error_msg", std::string());
      if (x.contains("costs_ms"))
        for (const auto &c : x.at("costs_ms")) m.costs_ms.push_back(c.get<double>());
      m.median_ms = std::numeric_limits<double>::infinity();
      finalize_result(im.task, m);
    }
  }
  if (kernels.empty() && !im.remote.keep) {
    std::string out;
    run_shell("rm -rf " + shell_quote(dir), &out);
  }
  double wall = seconds_since(t0);
  for (auto &m : res) m.wall_s = wall / std::max<size_t>(1, ins.size());
  return res;
}

}  // namespace autotune
}  // namespace tetune
