// tetune log list|best|export|import: inspect and move measure records.
//
// list, best and export read the user's log, then the shipped log
// (tuning_logs/log_set.h), and name the log of every record; with --db they
// read only that database. Each is opened read-only, and a missing one is an
// error. import writes into --db or the user's log, nothing else, the
// records of a JSON lines file or of another log (--from). A log is a SQLite
// file or a PostgreSQL database (postgresql:// URI), so import moves records
// between the two.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "base/errors.h"
#include "tools/cli_options.h"
#include "tools/commands.h"
#include "tuning_logs/database.h"
#include "tuning_logs/error_code.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/log_set.h"

namespace tetune {
namespace cli {

namespace {
struct LogArgs {
  std::string db, workload, target, file, from;
  int k = 1, threads = 0;  // threads: set by add_threads_option
  bool only_valid = false, no_shipped = false;
  int top = 0;
};

// The logs read: --db alone, else the user's log (once it exists) and the shipped one.
tuning_log::LogSet open_logs(const LogArgs &a) {
  tuning_log::LogSet logs = tuning_log::LogSet::open({a.db, a.db.empty() && !a.no_shipped});
  for (const auto &n : logs.notes()) std::fprintf(stderr, "note: %s\n", n.c_str());
  return logs;
}

void list(const LogArgs &a) {
  auto logs = open_logs(a);
  for (const auto &l : logs.logs()) std::printf("# %s: %s\n", l.role.c_str(), l.log.path().c_str());
  std::printf("%-8s %-18s %-14s %8s %8s %12s  %s\n", "db", "workload", "op", "records", "valid", "min_ms", "target");
  for (const auto &l : logs.logs())
    for (const auto &w : l.log.list_workloads())
      std::printf("%-8s %-18s %-14s %8lld %8lld %12s  %s\n", l.role.c_str(), w.workload_key.c_str(), w.op_name.c_str(),
                  static_cast<long long>(w.num_records), static_cast<long long>(w.num_valid),
                  w.best_median_ms ? std::to_string(*w.best_median_ms).c_str() : "-", w.target_key.c_str());
}

void best(const LogArgs &a) {
  auto logs = open_logs(a);
  if (a.workload.empty()) throw tetune::Error("tetune log best needs --workload KEY (see `tetune log list`)");
  tuning_log::TargetInfo host = tuning_log::host_target_info(a.threads);
  if (!a.target.empty()) {
    int left = a.k;
    for (const auto &l : logs.logs())
      for (const auto &r : l.log.best(a.workload, a.target, left)) {
        std::printf("%.4f ms  %.2f GFLOP/s  trial %d  from %s log %s\n%s\n", r.median_ms, r.gflops, r.trial_index,
                    l.role.c_str(), l.log.path().c_str(), r.schedule_json.c_str());
        left--;
      }
    return;
  }
  auto res = logs.best_with_fallback(a.workload, host);
  if (!res.result.note.empty()) std::fprintf(stderr, "note: %s\n", res.result.note.c_str());
  if (!res.record()) throw tetune::Error("no valid record for workload " + a.workload + " in " + logs.describe());
  const auto &r = *res.record();
  std::printf("%.4f ms  %.2f GFLOP/s  target %s  from %s log %s\n%s\n", r.median_ms, r.gflops,
              res.result.used_target_key.c_str(), res.from->role.c_str(), res.from->log.path().c_str(),
              r.schedule_json.c_str());
}

void export_records(const LogArgs &a) {
  auto logs = open_logs(a);
  tuning_log::ExportFilter f;
  if (!a.workload.empty()) f.workload_key = a.workload;
  if (!a.target.empty()) f.target_key = a.target;
  f.only_valid = a.only_valid;
  if (a.top > 0) f.top = a.top;
  std::ofstream file;
  if (!a.file.empty() && a.file != "-") {
    file.open(a.file);
    if (!file) throw tetune::Error("cannot write '" + a.file + "'");
  }
  std::ostream &out = file.is_open() ? static_cast<std::ostream &>(file) : std::cout;
  for (const auto &l : logs.logs()) {
    int64_t n = l.log.export_jsonl(out, f);
    std::fprintf(stderr, "exported %lld records from the %s log %s\n", static_cast<long long>(n), l.role.c_str(),
                 l.log.path().c_str());
  }
}

void import_records(const LogArgs &a) {
  if (a.file.empty() == a.from.empty())
    throw UsageError("tetune log import: give either a JSON lines FILE or --from LOG");
  // The records travel as JSON lines, the one form both kinds of log read and write.
  std::stringstream from_log;
  std::ifstream file;
  if (!a.from.empty()) {
    auto source = tuning_log::TuningLog::open_read_only(a.from);
    int64_t n = source.export_jsonl(from_log);
    std::fprintf(stderr, "read %lld records from %s\n", static_cast<long long>(n), source.path().c_str());
  } else {
    file.open(a.file);
    if (!file) throw tetune::Error("cannot read '" + a.file + "'");
  }
  const std::string path = a.db.empty() ? tuning_log::prepare_user_log_path() : a.db;
  tuning_log::refuse_writing_shipped_log(path);
  auto db = tuning_log::TuningLog::open(path);
  int64_t n = db.import_jsonl(a.from.empty() ? static_cast<std::istream &>(file) : from_log);
  std::printf("imported %lld new records into %s\n", static_cast<long long>(n), db.path().c_str());
}
}  // namespace

void add_log_command(CLI::App &app) {
  auto args = std::make_shared<LogArgs>();
  auto *cmd = app.add_subcommand("log", "Inspect and move tuning records (SQLite or PostgreSQL tuning logs)");
  cmd->require_subcommand(1);
  cmd->fallthrough();  // `tetune log list --db X` as well as `tetune log --db X list`
  add_db_option(cmd, args->db,
                "this log only (list/best/export: it must exist; import: a SQLite file is created if absent). Default: "
                "list/best/export read the user's log ($TETUNE_DB, else $XDG_CACHE_HOME/tetune/tetune.db), then "
                "the shipped log; import writes into the user's log");
  cmd->add_flag("--no-shipped-log", args->no_shipped, "without --db: read only the user's log, not the shipped one");
  auto *l = cmd->add_subcommand("list", "workloads with record counts and the lowest valid median (min_ms) per target and log (db: user or shipped, "
                                "paths on the # lines); `best` ranks re-measured schedules first");
  l->callback([args] { list(*args); });
  auto *b = cmd->add_subcommand("best", "best record of a workload (host target, nearest compatible target reported)");
  b->add_option("--workload", args->workload, "workload key")->required();
  b->add_option("--target", args->target, "exact target key (default: this machine, with reported fallback)");
  b->add_option("-k", args->k, "how many (with --target)")->check(positive());
  add_threads_option(b, args->threads, "thread count of this machine's target to look up (without --target)");
  b->callback([args] { best(*args); });
  auto *e = cmd->add_subcommand("export", "write records as JSON lines");
  e->add_option("-o,--output", args->file, "file (default: stdout)");
  e->add_option("--workload", args->workload, "only this workload");
  e->add_option("--target", args->target, "only this target key");
  e->add_flag("--only-valid", args->only_valid, "only error-free records");
  e->add_option("--top", args->top, "only the valid records of the N best-ranked schedules of each workload and target (as `best` ranks them; a compact log to ship)")
      ->check(positive());
  e->callback([args] { export_records(*args); });
  auto *i = cmd->add_subcommand("import", "read JSON lines, or another log's records (idempotent; a malformed line imports nothing)");
  auto *file = i->add_option("file", args->file, "JSON lines file (as `log export` writes)");
  add_db_option(i, args->from, "the log whose records to import instead of a file (opened read-only)", "--from")
      ->excludes(file);
  i->callback([args] { import_records(*args); });
}

}  // namespace cli
}  // namespace tetune
