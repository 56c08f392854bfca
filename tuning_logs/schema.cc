#include "tuning_logs/schema.h"

#include <sqlite3.h>

#include <set>

#include "base/errors.h"
#include "tuning_logs/sqlite_util.h"

namespace tetune::tuning_log {
namespace {

using internal::exec;
using internal::Statement;

constexpr const char *kCreateSql = R"sql(
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS workloads (
  key              TEXT PRIMARY KEY,
  op_name          TEXT NOT NULL,
  description_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS targets (
  key              TEXT PRIMARY KEY,
  kind             TEXT NOT NULL,
  cpu_model        TEXT NOT NULL,
  features         TEXT NOT NULL,
  threads          INTEGER NOT NULL,
  library_versions TEXT NOT NULL,
  device           TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  workload_key      TEXT NOT NULL,
  target_key        TEXT NOT NULL,
  schedule_json     TEXT NOT NULL,
  costs_ms_json     TEXT NOT NULL,
  median_ms         REAL,
  error_code        INTEGER NOT NULL,
  error_msg         TEXT NOT NULL,
  gflops            REAL,
  timestamp_unix_ms INTEGER NOT NULL,
  tuner_version     TEXT NOT NULL,
  trial_index       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_cost
  ON records (workload_key, target_key, median_ms);
CREATE INDEX IF NOT EXISTS records_by_time
  ON records (workload_key, target_key, timestamp_unix_ms);
)sql";

const std::set<std::string> kOurTables = {"meta", "workloads", "targets",
                                          "records"};

enum class State { kEmpty, kOurs };

// Reads the schema only; throws when the file is not ours.
State classify(sqlite3 *db, const std::string &path) {
  std::set<std::string> tables;
  {
    Statement st(db, path,
                 "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                 "name NOT LIKE 'sqlite_%'");
    while (st.step()) tables.insert(st.column_text(0));
  }
  if (tables.empty()) return State::kEmpty;
  if (!tables.count("meta")) {
    throw TuningLogError("tuning log '" + path +
                         "': database has a foreign schema (tables exist but "
                         "no 'meta' table); refusing to use it");
  }
  std::string app, version;
  {
    Statement st(db, path, "SELECT key, value FROM meta");
    while (st.step()) {
      std::string k = st.column_text(0);
      if (k == "application") app = st.column_text(1);
      if (k == "schema_version") version = st.column_text(1);
    }
  }
  if (app != kApplicationName) {
    throw TuningLogError("tuning log '" + path +
                         "': database has a foreign schema (meta.application "
                         "is '" + app + "', expected '" + kApplicationName +
                         "'); refusing to use it");
  }
  int v = 0;
  try {
    v = std::stoi(version);
  } catch (const std::exception &) {
    throw TuningLogError("tuning log '" + path +
                         "': meta.schema_version '" + version +
                         "' is not a number");
  }
  if (v < 1 || v > kSchemaVersion) {
    throw TuningLogError("tuning log '" + path + "': schema_version " +
                         version + " is not supported by this build (max " +
                         std::to_string(kSchemaVersion) + ")");
  }
  for (const auto &t : kOurTables) {
    if (!tables.count(t)) {
      throw TuningLogError("tuning log '" + path + "': table '" + t +
                           "' is missing; the database is damaged");
    }
  }
  return State::kOurs;
}

}  // namespace

void check_schema_read_only(sqlite3 *db, const std::string &path) {
  if (classify(db, path) == State::kEmpty) {
    throw TuningLogError("tuning log '" + path + "': not a tuning log (the database holds no tables)");
  }
}

void ensure_schema(sqlite3 *db, const std::string &path) {
  // 1. Read-only inspection: fails for garbage / foreign files before any
  //    byte of them is written.
  State state = classify(db, path);

  // 2. The file is empty or ours: WAL lets readers and one writer overlap.
  {
    Statement st(db, path, "PRAGMA journal_mode=WAL");
    std::string mode;
    if (st.step()) mode = st.column_text(0);
    // In-memory databases report "memory"; anything else is tolerated too.
    (void)mode;
  }
  exec(db, path, "PRAGMA synchronous=NORMAL");

  if (state == State::kOurs) return;  // nothing to write

  // 3. Create the schema under a write lock; another process may have raced
  //    us to it, so classify again inside the transaction.
  internal::WriteTransaction tx(db, path);
  state = classify(db, path);
  if (state == State::kEmpty) {
    exec(db, path, kCreateSql);
    Statement ins(db, path,
                  "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)");
    ins.bind(1, std::string("application"))
        .bind(2, std::string(kApplicationName))
        .run();
    ins.reset();
    ins.bind(1, std::string("schema_version"))
        .bind(2, std::to_string(kSchemaVersion))
        .run();
  }
  tx.commit();
}

}  // namespace tetune::tuning_log
