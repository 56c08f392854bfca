// tetune log list|best|export|import: inspect and move measure records.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "te/errors.h"
#include "tools/commands.h"
#include "tuning_logs/database.h"
#include "tuning_logs/error_code.h"

namespace tetune {
namespace cli {

namespace {
struct LogArgs {
  std::string db, workload, target, file;
  int k = 1;
  bool only_valid = false;
  int top = 0;
};

tuning_log::TuningLog open_db(const LogArgs &a) {
  return tuning_log::TuningLog::open(a.db.empty() ? tuning_log::TuningLog::default_path() : a.db);
}

void list(const LogArgs &a) {
  auto db = open_db(a);
  std::printf("%-18s %-14s %8s %8s %12s  %s\n", "workload", "op", "records", "valid", "min_ms", "target");
  for (const auto &w : db.list_workloads())
    std::printf("%-18s %-14s %8lld %8lld %12s  %s\n", w.workload_key.c_str(), w.op_name.c_str(),
                static_cast<long long>(w.num_records), static_cast<long long>(w.num_valid),
                w.best_median_ms ? std::to_string(*w.best_median_ms).c_str() : "-", w.target_key.c_str());
}

void best(const LogArgs &a) {
  auto db = open_db(a);
  if (a.workload.empty()) throw tetune::Error("tetune log best needs --workload KEY (see `tetune log list`)");
  tuning_log::TargetInfo host = tuning_log::host_target_info(1);
  if (!a.target.empty()) {
    for (const auto &r : db.best(a.workload, a.target, a.k))
      std::printf("%.4f ms  %.2f GFLOP/s  trial %d\n%s\n", r.median_ms, r.gflops, r.trial_index, r.schedule_json.c_str());
    return;
  }
  auto res = db.best_with_fallback(a.workload, host);
  if (!res.note.empty()) std::fprintf(stderr, "note: %s\n", res.note.c_str());
  if (!res.record()) throw tetune::Error("no valid record for workload " + a.workload);
  const auto &r = *res.record();
  std::printf("%.4f ms  %.2f GFLOP/s  target %s\n%s\n", r.median_ms, r.gflops, res.used_target_key.c_str(), r.schedule_json.c_str());
}

void export_records(const LogArgs &a) {
  auto db = open_db(a);
  tuning_log::ExportFilter f;
  if (!a.workload.empty()) f.workload_key = a.workload;
  if (!a.target.empty()) f.target_key = a.target;
  f.only_valid = a.only_valid;
  if (a.top > 0) f.top = a.top;
  int64_t n;
  if (a.file.empty() || a.file == "-") {
    n = db.export_jsonl(std::cout, f);
  } else {
    std::ofstream out(a.file);
    if (!out) throw tetune::Error("cannot write '" + a.file + "'");
    n = db.export_jsonl(out, f);
  }
  std::fprintf(stderr, "exported %lld records\n", static_cast<long long>(n));
}

void import_records(const LogArgs &a) {
  auto db = open_db(a);
  std::ifstream in(a.file);
  if (!in) throw tetune::Error("cannot read '" + a.file + "'");
  int64_t n = db.import_jsonl(in);
  std::printf("imported %lld new records into %s\n", static_cast<long long>(n), (a.db.empty() ? tuning_log::TuningLog::default_path() : a.db).c_str());
}
}  // namespace

void add_log_command(CLI::App &app) {
  auto args = std::make_shared<LogArgs>();
  auto *cmd = app.add_subcommand("log", "Inspect and move tuning records (SQLite tuning log)");
  cmd->require_subcommand(1);
  cmd->add_option("--db", args->db, "database path (default: $TETUNE_DB or tuning_logs/tetune.db)");
  auto *l = cmd->add_subcommand("list", "workloads with record counts and the lowest valid median (min_ms) per target; `best` ranks re-measured schedules first");
  l->callback([args] { list(*args); });
  auto *b = cmd->add_subcommand("best", "best record of a workload (host target, nearest compatible target reported)");
  b->add_option("--workload", args->workload, "workload key")->required();
  b->add_option("--target", args->target, "exact target key (default: this machine, with reported fallback)");
  b->add_option("-k", args->k, "how many (with --target)");
  b->callback([args] { best(*args); });
  auto *e = cmd->add_subcommand("export", "write records as JSON lines");
  e->add_option("-o,--output", args->file, "file (default: stdout)");
  e->add_option("--workload", args->workload, "only this workload");
  e->add_option("--target", args->target, "only this target key");
  e->add_flag("--only-valid", args->only_valid, "only error-free records");
  e->add_option("--top", args->top, "only the valid records of the N best-ranked schedules of each workload and target (as `best` ranks them; a compact log to ship)")
      ->check(CLI::PositiveNumber);
  e->callback([args] { export_records(*args); });
  auto *i = cmd->add_subcommand("import", "read JSON lines (idempotent; a malformed line imports nothing)");
  i->add_option("file", args->file, "JSON lines file")->required();
  i->callback([args] { import_records(*args); });
}

}  // namespace cli
}  // namespace tetune
