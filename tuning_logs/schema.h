// The tuning-log database schema: creation and verification, the same for
// every backend (SQLite file or PostgreSQL database).
#pragma once

#include <string>

namespace tetune::tuning_log {

class LogBackend;

/** Version written to meta.schema_version by this build. */
inline constexpr int kSchemaVersion = 1;
/** Value of meta.application identifying a tetune tuning log. */
inline constexpr const char *kApplicationName = "tetune.tuning_log";

/**
 * Makes the backend's database a usable tuning log, never dropping or
 * rewriting stored data:
 *  - a database without any table gets the schema (tables meta, workloads,
 *    targets, records and their indexes), created in one write transaction
 *    (LogBackend::begin_write), so that two processes opening an empty
 *    database at once create it once;
 *  - a database carrying our meta row with schema_version <= kSchemaVersion
 *    is accepted as is (nothing is written);
 *  - anything else (not a database, tables of another application,
 *    a newer schema_version) raises tetune::TuningLogError naming the log.
 * Calls LogBackend::prepare_for_writing() once the database is known to be ours.
 */
void ensure_schema(LogBackend &backend);

/**
 * Verifies a log opened read-only without writing anything: accepts a
 * database carrying our meta row with schema_version <= kSchemaVersion;
 * raises tetune::TuningLogError naming the log for anything else, an empty
 * database (no tables: "not a tuning log") included.
 */
void check_schema_read_only(LogBackend &backend);

}  // namespace tetune::tuning_log
