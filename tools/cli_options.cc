#include "tools/cli_options.h"

#include <cmath>

#include "codegen/gpu_runtime.h"
#include "codegen/kernel.h"
#include "runtime/spin_pool.h"
#include "base/errors.h"

namespace tetune {
namespace cli {

namespace {
CLI::Validator number_check(const std::string &desc, bool (*ok)(double), const std::string &want) {
  return CLI::Validator(
      [ok, want](std::string &in) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(in, v)) return "'" + in + "' is not a number";
        return std::isfinite(v) && ok(v) ? "" : want + ", got " + in;
      },
      desc);
}
}  // namespace

CLI::Option *add_threads_option(CLI::App *cmd, int &threads, const std::string &what) {
  threads = rt::SpinPool::default_threads();
  return cmd
      ->add_option("--threads", threads,
                   what + " (default " + std::to_string(threads) +
                       ": this machine's cores, or $HL_NUM_THREADS; the same default in every command)")
      ->check(CLI::Range(1, rt::SpinPool::kMaxThreads));
}

const CLI::Validator &positive() {
  static const CLI::Validator v = number_check("POSITIVE", [](double x) { return x > 0; }, "must be a positive number");
  return v;
}

const CLI::Validator &non_negative() {
  static const CLI::Validator v = number_check("NONNEGATIVE", [](double x) { return x >= 0; }, "must be a number >= 0");
  return v;
}

void require_measurable_here(const Target &target, const std::string &option) {
  std::string why;
  if (target.is_gpu() && !cuda_device_available(&why))
    throw UsageError(option + " " + target.spec + ": this machine cannot run CUDA kernels (" + why +
                     "); measure on a GPU machine with --remote-command (README: Measure on another machine)");
}

}  // namespace cli
}  // namespace tetune
