// Which kind of database a tuning-log location names, and how to show it.
//
// A location is a SQLite file path, or a PostgreSQL connection URI
// (libpq's form, https://www.postgresql.org/docs/15/libpq-connect.html):
//   postgresql://[user[:password]@][host][:port][/dbname][?param=value&...]
// e.g. postgresql://tuner@db.lab/tetune, or postgresql://tuner@/tetune?host=/run/postgresql
// for a Unix socket directory.
#pragma once

#include <string>

namespace tetune::tuning_log {

/** True when `location` starts with "postgresql://" or "postgres://". */
bool is_postgres_uri(const std::string &location);

/**
 * `location` as messages may show it: a PostgreSQL URI with its password
 * (in the user part, or a password= parameter) replaced by "***"; a file
 * path unchanged.
 */
std::string redact_location(const std::string &location);

/**
 * `text` (a message from the database library) with every occurrence of a
 * password written in the URI `location` replaced by "***".
 */
std::string hide_passwords(const std::string &text, const std::string &location);

}  // namespace tetune::tuning_log
