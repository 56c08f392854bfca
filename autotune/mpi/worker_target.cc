#include "autotune/mpi/worker_target.h"

#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "base/errors.h"
#include "codegen/host_target.h"
#include "runtime/cpu_features.h"

namespace tetune {
namespace autotune {
namespace mpi {

namespace {

// "x86-64-linux" of "x86-64-linux-avx2-fma": Halide's arch, bits and OS.
std::string arch_bits_os(const std::string &halide) {
  size_t end = 0;
  for (int dashes = 0; dashes < 3 && end != std::string::npos; dashes++) end = halide.find('-', end ? end + 1 : 0);
  return halide.substr(0, end);
}

std::string joined(const std::vector<std::string> &v) {
  std::string s;
  for (const auto &e : v) s += (s.empty() ? "" : ", ") + e;
  return s;
}

// One spelling for a /proc/cpuinfo flag ("sse4_1", "avx512_vbmi2", "bmi1")
// and the LLVM extension it reports ("sse4.1", "avx512vbmi2", "bmi").
std::string extension_name(const std::string &name) {
  std::string out;
  for (char c : name)
    if (c != '_' && c != '.' && c != '-') out += c;
  return out == "bmi1" ? "bmi" : out;
}

}  // namespace

WorkerTarget::WorkerTarget(const std::string &spec) {
  if (spec.empty() || spec == "host") return;
  const std::string what = std::string(kTargetVariable) + "=" + spec;
  std::string host, halide;
  bool gpu = false;
  try {
    host = Target{}.halide_string();
    Target t{spec};
    halide = t.halide_string();
    gpu = t.is_gpu();
  } catch (const CodegenError &e) {
    throw UsageError(what + ": " + e.what());
  }
  if (halide == host) return;
  if (gpu) throw UsageError(what + ": a GPU target; MPI worker ranks measure CPU tasks only");
  if (arch_bits_os(halide) != arch_bits_os(host))
    throw UsageError(what + ": not this machine's architecture and OS (" + arch_bits_os(host) +
                     "); its kernels cannot run here");
  if (arch_bits_os(host).rfind("x86-64", 0) != 0)
    throw UsageError(what + ": only an x86-64 host measures for a target other than its own (" + host +
                     "): elsewhere the extensions a target uses cannot be checked against this CPU's");
  std::vector<std::string> lacks = codegen::host_lacks(halide);
  if (!lacks.empty())
    throw UsageError(what + ": this CPU lacks " + joined(lacks) + ", which that target uses (this CPU's own: " +
                     host + ")");
  halide_ = halide;
}

Task WorkerTarget::retarget(const Task &task) const {
  Task t = task;
  if (!is_host() && !task.target.is_gpu()) t.target = Target{halide_};
  return t;
}

tuning_log::TargetInfo WorkerTarget::info(int threads) const {
  tuning_log::TargetInfo t = tuning_log::host_target_info(threads);
  if (is_host()) return t;
  std::set<std::string> uses = {"sse", "sse2"};  // x86-64 itself: LLVM's baseline
  for (const auto &e : rt::required_extensions(halide_)) uses.insert(extension_name(e));
  std::string kept;
  std::istringstream flags(t.features);
  for (std::string f; std::getline(flags, f, ',');)
    if (uses.count(extension_name(f))) kept += (kept.empty() ? "" : ",") + f;
  t.features = kept;
  return t;
}

WorkerTarget worker_target_from_env() {
  const char *v = std::getenv(kTargetVariable);
  return WorkerTarget(v ? v : "");
}

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
