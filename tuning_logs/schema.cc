#include "tuning_logs/schema.h"

#include <set>
#include <vector>

#include "base/errors.h"
#include "tuning_logs/log_backend.h"

namespace tetune::tuning_log {
namespace {

// Types both databases read alike: BIGINT and DOUBLE PRECISION have SQLite's
// INTEGER and REAL affinities. {ID} is LogBackend::id_column_sql().
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
  id                {ID},
  workload_key      TEXT NOT NULL,
  target_key        TEXT NOT NULL,
  schedule_json     TEXT NOT NULL,
  costs_ms_json     TEXT NOT NULL,
  median_ms         DOUBLE PRECISION,
  error_code        INTEGER NOT NULL,
  error_msg         TEXT NOT NULL,
  gflops            DOUBLE PRECISION,
  timestamp_unix_ms BIGINT NOT NULL,
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

std::string create_sql(const LogBackend &backend) {
  std::string sql = kCreateSql;
  sql.replace(sql.find("{ID}"), 4, backend.id_column_sql());
  return sql;
}

// Reads the schema only; throws when the database is not ours.
State classify(LogBackend &backend) {
  const std::string &path = backend.name();
  std::vector<std::string> names = backend.table_names();
  std::set<std::string> tables(names.begin(), names.end());
  if (tables.empty()) return State::kEmpty;
  if (!tables.count("meta")) {
    throw TuningLogError("tuning log '" + path +
                         "': database has a foreign schema (tables exist but "
                         "no 'meta' table); refusing to use it");
  }
  std::string app, version;
  {
    auto st = backend.prepare("SELECT key, value FROM meta");
    while (st->step()) {
      std::string k = st->column_text(0);
      if (k == "application") app = st->column_text(1);
      if (k == "schema_version") version = st->column_text(1);
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

void check_schema_read_only(LogBackend &backend) {
  if (classify(backend) == State::kEmpty) {
    throw TuningLogError("tuning log '" + backend.name() + "': not a tuning log (the database holds no tables)");
  }
}

void ensure_schema(LogBackend &backend) {
  // 1. Read-only inspection: fails for garbage / foreign databases before
  //    any byte of them is written.
  State state = classify(backend);
  backend.prepare_for_writing();
  if (state == State::kOurs) return;  // nothing to write

  // 2. Create the schema under the write lock; another process may have
  //    raced us to it, so classify again inside the transaction.
  WriteTransaction tx(backend);
  if (classify(backend) == State::kEmpty) {
    backend.exec(create_sql(backend));
    auto ins = backend.prepare("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING");
    ins->bind(1, std::string("application")).bind(2, std::string(kApplicationName)).run();
    ins->reset();
    ins->bind(1, std::string("schema_version")).bind(2, std::to_string(kSchemaVersion)).run();
  }
  tx.commit();
}

}  // namespace tetune::tuning_log
