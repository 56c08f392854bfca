#include "tuning_logs/log_set.h"

#include <sys/stat.h>

#include <cstdlib>

#include "base/errors.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/log_uri.h"

namespace tetune::tuning_log {

LogSet LogSet::open(const LogSetOptions &options) {
  LogSet set;
  std::string user = options.db.empty() ? user_log_path() : options.db;
  struct stat st;
  if (options.db.empty() && !is_postgres_uri(user) && ::stat(user.c_str(), &st) != 0) {
    set.notes_.push_back("user log " + user + " does not exist yet (nothing tuned on this machine)");
  } else {
    set.logs_.push_back({"user", TuningLog::open_read_only(user)});
  }
  if (options.shipped) {
    std::string shipped = shipped_log_path();
    const char *env = std::getenv("TETUNE_SHIPPED_DB");
    if (shipped.empty()) {
      set.notes_.push_back(env ? "shipped log turned off (TETUNE_SHIPPED_DB is empty)" : "no shipped log found");
    } else if (same_file(shipped, user)) {
      set.notes_.push_back("shipped log " + shipped + " is the user log; read once");
    } else {
      set.logs_.push_back({"shipped", TuningLog::open_read_only(shipped)});
    }
  }
  return set;
}

LogSet::Best LogSet::best_with_fallback(const std::string &workload_key, const TargetInfo &target, int k) const {
  Best fallback, none;
  std::string why_none;
  for (const Entry &e : logs_) {
    BestResult r = e.log.best_with_fallback(workload_key, target, k);
    std::string where = e.role + " log " + e.log.path();
    if (r.record() && r.exact_target) {
      r.note += " (" + where + ")";
      return Best{std::move(r), &e};
    }
    if (r.record() && !fallback.from) {
      r.note += " (" + where + ")";
      fallback = Best{std::move(r), &e};
    } else if (!r.record()) {
      why_none += (why_none.empty() ? "" : "; ") + where + ": " + r.note;
    }
  }
  if (fallback.from) return fallback;
  none.result.note = logs_.empty() ? "no tuning log to read" : why_none;
  return none;
}

std::string LogSet::describe() const {
  std::string out;
  for (const Entry &e : logs_) out += (out.empty() ? "" : ", ") + e.role + " log " + e.log.path();
  if (out.empty()) out = "no tuning log";
  for (const auto &n : notes_) out += "; " + n;
  return out;
}

}  // namespace tetune::tuning_log
