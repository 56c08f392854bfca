#include "runtime/measure_runner.h"

#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <halide14/HalideRuntime.h>
#include <nlohmann/json.hpp>

#include "runtime/child_process.h"
#include "runtime/cuda_events.h"
#include "runtime/kernel_library.h"
#include "runtime/io.h"
#include "runtime/plan.h"
#include "base/errors.h"

namespace tetune {
namespace rt {

namespace {

// Error codes of tuning_logs/error_code.h.
constexpr int kNoError = 0, kRuntimeError = 2, kTimeout = 3, kWrongAnswer = 4, kCrash = 5, kUnknown = 7;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }


struct Batch {
  std::string dir, library;
  bool gpu = false;
  int threads = 1, warmup = 1, repeat = 3, max_number = 1000;
  double min_repeat_ms = 20, tolerance = 1e-3, timeout_s = 20;
  std::vector<NDArray> inputs, references;
  std::vector<std::string> kernels;
  // kernel -> (input index -> its own array): constant weights packed for that kernel (codegen/prepack.h)
  std::map<std::string, std::map<size_t, NDArray>> kernel_inputs;
};

Batch read_batch(const std::string &dir) {
  const std::string path = dir + "/batch.json";
  Batch b;
  b.dir = dir;
  try {
    auto j = nlohmann::json::parse(read_file_bytes(path));
    if (j.at("format").get<std::string>() != "tetune-measure-batch-1")
      throw ParseError(path + ": format '" + j.at("format").get<std::string>() + "', expected 'tetune-measure-batch-1'");
    b.library = dir + "/" + j.at("library").get<std::string>();
    b.gpu = j.value("gpu", false);
    b.threads = j.value("threads", 1);
    b.warmup = j.value("warmup", 1);
    b.repeat = std::max(1, j.value("repeat", 3));
    b.max_number = std::max(1, j.value("max_number", 1000));
    b.min_repeat_ms = j.value("min_repeat_ms", 20.0);
    b.tolerance = j.at("tolerance").get<double>();
    b.timeout_s = j.value("timeout_s", 20.0);
    for (const auto &f : j.at("inputs")) b.inputs.push_back(read_npy_file(dir + "/" + f.get<std::string>()));
    for (const auto &f : j.at("references")) b.references.push_back(read_npy_file(dir + "/" + f.get<std::string>()));
    for (const auto &k : j.at("kernels")) b.kernels.push_back(k.get<std::string>());
    std::map<std::string, NDArray> files;  // a packed weight shared by several kernels is read once
    const nlohmann::json kernel_inputs = j.value("kernel_inputs", nlohmann::json::object());
    for (const auto &[kernel, by_index] : kernel_inputs.items())
      for (const auto &[index, file] : by_index.items()) {
        const bool number = !index.empty() && index.find_first_not_of("0123456789") == std::string::npos;
        const size_t i = number ? std::stoul(index) : b.inputs.size();
        if (i >= b.inputs.size())
          throw ParseError(path + ": kernel_inputs of " + kernel + " names input " + index + " of " +
                           std::to_string(b.inputs.size()));
        auto it = files.find(file.get<std::string>());
        if (it == files.end()) it = files.emplace(file.get<std::string>(), read_npy_file(dir + "/" + file.get<std::string>())).first;
        b.kernel_inputs[kernel].emplace(i, it->second);
      }
  } catch (const nlohmann::json::exception &e) {
    throw ParseError(path + ": malformed batch description: " + e.what());
  }
  return b;
}

// A halide_buffer_t over an NDArray's memory.
struct Buffer {
  halide_buffer_t buf{};
  std::vector<halide_dimension_t> dims;
  explicit Buffer(NDArray &a) : dims(dense_dims(a.shape())) {
    buf.type = halide_type_of(a.dtype());
    buf.dimensions = static_cast<int>(a.shape().size());
    buf.dim = dims.data();
    buf.host = static_cast<uint8_t *>(a.raw());
  }
};

// The child's work: a JSON result for one kernel.
nlohmann::json measure_in_child(Batch &b, const std::string &kernel) {
  nlohmann::json r = {{"kernel", kernel}, {"error_code", kNoError}, {"error_msg", ""}, {"costs_ms", nlohmann::json::array()}};
  const char *fault = std::getenv("TETUNE_RUNNER_FAULT");
  if (fault && std::string(fault) == "segfault:" + kernel) {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (fault && std::string(fault) == "hang:" + kernel)
    for (;;) pause();
  std::unique_ptr<KernelLibrary> lib = KernelLibrary::open(b.library);
  const KernelEntry *entry = lib->find(kernel);
  if (!entry) throw RuntimeError(b.library + ": no kernel '" + kernel + "'");
  size_t nargs = b.inputs.size() + b.references.size();
  if (entry->num_args != static_cast<int>(nargs))
    throw RuntimeError("kernel " + kernel + " takes " + std::to_string(entry->num_args) + " buffers, the batch has " +
                       std::to_string(nargs));
  if (auto threads = lib->symbol<int (*)(int)>("halide_set_num_threads")) threads(std::max(1, b.threads));
  auto copy_to_host = lib->symbol<int (*)(void *, halide_buffer_t *)>("halide_copy_to_host");
  auto device_sync = lib->symbol<int (*)(void *, halide_buffer_t *)>("halide_device_sync");
  if (b.gpu && (!copy_to_host || !device_sync)) throw RuntimeError(b.library + ": a GPU batch without halide_copy_to_host / halide_device_sync");

  std::vector<NDArray> outs;
  for (const auto &ref : b.references) outs.emplace_back(ref.shape(), ref.dtype());
  std::vector<NDArray> ins = b.inputs;
  auto own = b.kernel_inputs.find(kernel);
  if (own != b.kernel_inputs.end())
    for (const auto &[i, a] : own->second) ins[i] = a;
  std::vector<Buffer> bufs;
  bufs.reserve(nargs);
  for (auto &a : ins) bufs.emplace_back(a);
  for (auto &a : outs) bufs.emplace_back(a);
  std::vector<void *> argv;
  for (auto &x : bufs) argv.push_back(&x.buf);
  for (size_t i = 0; i < b.inputs.size() && b.gpu; i++) bufs[i].buf.flags = halide_buffer_flag_host_dirty;
  auto call = [&]() {
    KernelLibrary::clear_error();
    int rc = entry->fn_argv(argv.data());
    const std::string &why = KernelLibrary::last_error();
    if (rc != 0) throw RuntimeError("Halide error " + std::to_string(rc) + (why.empty() ? "" : ": " + why));
  };
  auto sync = [&]() {
    if (!b.gpu) return;
    for (size_t i = b.inputs.size(); i < bufs.size(); i++)
      if (device_sync(nullptr, &bufs[i].buf) != 0) throw RuntimeError("halide_device_sync failed: " + KernelLibrary::last_error());
  };
  call();
  if (b.gpu)
    for (size_t i = b.inputs.size(); i < bufs.size(); i++)
      if (copy_to_host(nullptr, &bufs[i].buf) != 0) throw RuntimeError("copying an output to the host failed: " + KernelLibrary::last_error());
  for (size_t i = 0; i < outs.size(); i++) {
    double e = scaled_max_error(outs[i], b.references[i]);
    if (!(e <= b.tolerance)) {
      r["error_code"] = kWrongAnswer;
      r["error_msg"] = "wrong answer: max error " + std::to_string(e) + " (relative to max |ref|) in output " +
                       std::to_string(i) + ", tolerance " + std::to_string(b.tolerance);
      return r;
    }
  }
  for (int i = 0; i < b.warmup; i++) call();
  sync();
  // GPU: CUDA events in the context and on the stream of the library's Halide runtime, which exist
  // now that a kernel has run; any failure is this kernel's error (no fallback to the wall clock).
  // CPU: steady_clock. A repeat is timed from before its first call to after its last one finished.
  std::unique_ptr<CudaEventTimer> events;
  if (b.gpu) events = std::make_unique<CudaEventTimer>(halide_cuda_stream(lib->handle()));
  Clock::time_point t_start;
  auto start = [&]() {
    if (events) events->start();
    else t_start = Clock::now();
  };
  auto stop_ms = [&]() { return events ? events->stop_ms() : ms_since(t_start); };
  start();
  call();
  double one = stop_ms();
  int number = static_cast<int>(std::ceil(b.min_repeat_ms / std::max(one, 1e-4)));
  number = std::max(1, std::min(number, b.max_number));
  for (int rep = 0; rep < b.repeat; rep++) {
    start();
    for (int i = 0; i < number; i++) call();
    r["costs_ms"].push_back(stop_ms() / number);
  }
  r["clock"] = events ? "cuda_event" : "steady_clock";
  return r;
}

// Forks a child for one kernel; returns its result or the reason it gave none.
KernelMeasurement run_one(Batch &b, const std::string &kernel) {
  KernelMeasurement m;
  m.kernel = kernel;
  ChildExit e = run_in_child(b.timeout_s, [&] {
    nlohmann::json r;
    try {
      r = measure_in_child(b, kernel);
    } catch (const RuntimeError &err) {
      r = {{"kernel", kernel}, {"error_code", kRuntimeError}, {"error_msg", err.what()}, {"costs_ms", nlohmann::json::array()}};
    } catch (const std::exception &err) {
      r = {{"kernel", kernel}, {"error_code", kUnknown}, {"error_msg", err.what()}, {"costs_ms", nlohmann::json::array()}};
    }
    return r.dump();
  });
  if (e.timed_out) {
    m.error_code = kTimeout;
    m.error_msg = e.reason(b.timeout_s);
    return m;
  }
  if (!e.ok() || e.payload.empty()) {
    m.error_code = kCrash;
    m.error_msg = e.ok() ? "crash: no result" : "crash: " + e.reason(b.timeout_s);
    return m;
  }
  const std::string &payload = e.payload;
  try {
    auto j = nlohmann::json::parse(payload);
    m.error_code = j.at("error_code").get<int>();
    m.error_msg = j.at("error_msg").get<std::string>();
    for (const auto &c : j.at("costs_ms")) m.costs_ms.push_back(c.get<double>());
    m.clock = j.value("clock", std::string());
  } catch (const nlohmann::json::exception &e) {
    m.error_code = kCrash;
    m.error_msg = std::string("crash: truncated result (") + e.what() + ")";
  }
  return m;
}

std::string cpu_model(const std::string &cpuinfo) {
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t c = line.find(':');
      return c == std::string::npos ? line : line.substr(line.find_first_not_of(" \t", c + 1));
    }
  return "unknown CPU";
}

// The GPU name of a measurement's "device" field (after all children ran:
// initialising CUDA here before forking would break CUDA in the children).
std::string gpu_device_name() {
  std::string name = cuda_device_name();
  return name.empty() ? "unknown GPU (no CUDA device answers through libcuda.so.1)" : name;
}

}  // namespace

std::vector<KernelMeasurement> run_measure_batch(const std::string &dir) {
  Batch b = read_batch(dir);
  KernelLibrary::open(b.library);  // fail early, naming the file (loading starts no CUDA context)
  std::vector<KernelMeasurement> out;
  for (const auto &k : b.kernels) out.push_back(run_one(b, k));
  std::string cpuinfo;
  try {
    cpuinfo = read_file_bytes("/proc/cpuinfo");
  } catch (const Error &) {
  }
  nlohmann::json j = {{"format", "tetune-measure-results-1"},
                      {"device", b.gpu ? gpu_device_name() : cpu_model(cpuinfo)},
                      {"cpuinfo", cpuinfo},
                      {"results", nlohmann::json::array()}};
  for (const auto &m : out)
    j["results"].push_back({{"kernel", m.kernel},
                            {"error_code", m.error_code},
                            {"error_msg", m.error_msg},
                            {"costs_ms", m.costs_ms},
                            {"clock", m.clock}});
  const std::string path = dir + "/results.json", tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << j.dump() << "\n";
    if (!f) throw RuntimeError(path + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw RuntimeError(path + ": cannot write");
  return out;
}

}  // namespace rt
}  // namespace tetune
