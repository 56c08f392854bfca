#include "autotune/cost_model/shipped_model.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/features/features.h"
#include "base/errors.h"

namespace tetune {
namespace cost_model {
namespace {

// The lookup order of tuning_logs/log_paths.cc's shipped_log_path(), for another file.
constexpr const char *kShippedRelative = "autotune/cost_model/shipped/xgb.json";
constexpr const char *kWorkspace = "tetune";

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

bool is_file(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string self_exe() {
  std::vector<char> buf(4096);
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<size_t>(n)) : std::string();
}

}  // namespace

std::string shipped_cost_model_path() {
  if (const char *v = std::getenv("TETUNE_COST_MODEL")) return v;  // "" turns it off
  std::vector<std::string> candidates;
  const std::string exe = self_exe();
  const std::string rel = std::string(kWorkspace) + "/" + kShippedRelative;
  if (!exe.empty()) candidates.push_back(exe + ".runfiles/" + rel);
  if (const char *r = env("RUNFILES_DIR")) candidates.push_back(std::string(r) + "/" + rel);
  if (const char *r = env("TEST_SRCDIR")) candidates.push_back(std::string(r) + "/" + rel);
  for (std::string dir = exe; !dir.empty();) {
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
    candidates.push_back(dir + "/" + kShippedRelative);
  }
  if (const char *ws = env("BUILD_WORKSPACE_DIRECTORY")) candidates.push_back(std::string(ws) + "/" + kShippedRelative);
  for (const auto &c : candidates) {
    // Both files: a runfiles tree without the sidecar is not the model.
    if (!is_file(c) || !is_file(XGBCostModel::rows_path(c))) continue;
    char *real = ::realpath(c.c_str(), nullptr);
    std::string out = real ? real : c;
    std::free(real);
    // The sidecar is looked up next to the resolved path: it must be there too.
    if (!is_file(XGBCostModel::rows_path(out))) out = c;
    return out;
  }
  return "";
}

std::unique_ptr<CostModel> load_shipped_cost_model(std::string *reason) {
  auto why = [&](const std::string &r) {
    if (reason) *reason = r;
    return std::unique_ptr<CostModel>();
  };
  const std::string path = shipped_cost_model_path();
  if (path.empty()) {
    if (const char *v = std::getenv("TETUNE_COST_MODEL"); v && !*v)
      return why("no shipped cost model: TETUNE_COST_MODEL is set but empty");
    return why(std::string("no shipped cost model: ") + kShippedRelative +
               " was not found next to the binary, in its runfiles or in $BUILD_WORKSPACE_DIRECTORY "
               "(set TETUNE_COST_MODEL to its path)");
  }
  auto model = std::make_unique<XGBCostModel>();
  try {
    model->load(path);
  } catch (const Error &e) {
    return why("shipped cost model " + path + " does not load: " + e.what());
  }
  if (!model->trained()) return why("shipped cost model " + path + " is untrained");
  if (model->num_features() != static_cast<size_t>(autotune::features::kNumFeatures))
    return why("shipped cost model " + path + " was trained on " + std::to_string(model->num_features()) +
               " features, this build computes " + std::to_string(autotune::features::kNumFeatures) +
               ": retrain it with tools/train_cost_model.sh");
  return model;
}

}  // namespace cost_model
}  // namespace tetune
