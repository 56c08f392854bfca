#include "tools/cli_options.h"

#include "autotune/cost_model/shipped_model.h"
#include "autotune/cost_model/xgb_cost_model.h"

#include <cmath>

#include "codegen/gpu_runtime.h"
#include "codegen/kernel.h"
#include "relay_import/executor.h"
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

CLI::Option *add_db_option(CLI::App *cmd, std::string &db, const std::string &what, const std::string &name) {
  return cmd->add_option(name, db,
                         what + ". A log is a SQLite file, or a PostgreSQL database a team shares: "
                                "postgresql://USER@HOST[:PORT]/DB (a libpq URI; keep a password in ~/.pgpass or "
                                "$PGPASSWORD rather than in the URI)");
}

CLI::Option *add_layout_option(CLI::App *cmd, std::string &layout) {
  layout = "blocked";
  return cmd
      ->add_option("--layout", layout,
                   "blocked (default): convolution chains in NCHW[b]c, b = the fp32 lanes of a vector (16 with AVX-512), "
                   "3x3 stride-1 convs by Winograd (`tetune graph` shows the tile); blocked-direct: the same with every "
                   "conv direct (its exact rounding); nchw: every tensor in the model's layout")
      ->check(CLI::IsMember(relay::layout_names()));
}

CLI::Option *add_cache_option(CLI::App *cmd, std::string &cache, bool per_task) {
  cache = per_task ? "auto" : "warm";
  std::vector<std::string> names = {"warm", "cold", "model", "l3"};
  if (per_task) names.push_back("auto");
  return cmd
      ->add_option("--cache", cache,
                   std::string("what the caches hold when a timed run starts: warm (runs back to back), cold (inputs "
                               "and outputs flushed, TVM's enable_cpu_cache_flush), model (the model's weights flushed, "
                               "activations as their producer left them, as inside a model whose weights exceed the L3), l3 (the "
                               "weights in the L3 but not the L2, activations in cache, as inside a model whose "
                               "weights fit the L3)") +
                       (per_task ? ", auto (per task: model where its weights exceed the L2 and the model's do not stay "
                                   "cached, as measured by re-reading a buffer their size, since a VM reports its "
                                   "host's L3; they then come from memory on each inference; else warm); default auto"
                                 : "; default warm"))
      ->check(CLI::IsMember(names));
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

const char *const kCostModelHelp =
    "schedules of tasks without a tuning record: none (default: the analytical default), shipped (ranked by the "
    "shipped cost model, autotune/cost_model/shipped/), or the path of a model saved by `tetune cost-model train`";

autotune::DefaultScheduleOptions untuned_options(const std::string &cost_model,
                                                 std::unique_ptr<cost_model::CostModel> *holder) {
  autotune::DefaultScheduleOptions o;
  if (cost_model.empty() || cost_model == "none") return o;
  std::string why;
  if (cost_model == "shipped") {
    *holder = cost_model::load_shipped_cost_model(&why);
    if (!*holder) throw UsageError("--cost-model shipped: " + why);
  } else {
    auto m = std::make_unique<cost_model::XGBCostModel>();
    try {
      m->load(cost_model);
    } catch (const Error &e) {
      throw UsageError("--cost-model " + cost_model + ": " + e.what());
    }
    if (!m->trained()) throw UsageError("--cost-model " + cost_model + ": the model is not trained");
    *holder = std::move(m);
  }
  o.cost_model = holder->get();
  return o;
}

}  // namespace cli
}  // namespace tetune
