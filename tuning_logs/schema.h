// The tuning-log database schema: creation and verification.
#pragma once

#include <string>

struct sqlite3;

namespace tetune::tuning_log {

/** Version written to meta.schema_version by this build. */
inline constexpr int kSchemaVersion = 1;
/** Value of meta.application identifying a tetune tuning log. */
inline constexpr const char *kApplicationName = "tetune.tuning_log";

/**
 * Makes `db` a usable tuning log, never dropping or rewriting stored data:
 *  - a database without any table gets the schema (tables meta, workloads,
 *    targets, records and their indexes), created in one transaction;
 *  - a database carrying our meta row with schema_version <= kSchemaVersion
 *    is accepted as is (nothing is written);
 *  - anything else (not a SQLite file, tables of another application,
 *    a newer schema_version) raises tetune::TuningLogError naming `path`.
 * Also sets journal_mode=WAL (only once the file is known to be ours).
 */
void ensure_schema(sqlite3 *db, const std::string &path);

/**
 * Verifies a log opened read-only without writing anything: accepts a
 * database carrying our meta row with schema_version <= kSchemaVersion;
 * raises tetune::TuningLogError naming `path` for anything else, an empty
 * database (no tables: "not a tuning log") included.
 */
void check_schema_read_only(sqlite3 *db, const std::string &path);

}  // namespace tetune::tuning_log
