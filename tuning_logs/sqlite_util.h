// Thin RAII helpers over the SQLite C API (internal to tuning_logs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace tetune::tuning_log::internal {

/** Throws tetune::TuningLogError: "<path>: <what>: <sqlite message> (code N)". */
[[noreturn]] void throw_sqlite(sqlite3 *db, const std::string &path,
                               const std::string &what, int rc);

/** A prepared statement; finalised on destruction. Errors name `path`. */
class Statement {
 public:
  Statement(sqlite3 *db, const std::string &path, const char *sql);
  ~Statement();
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;

  // Bind by 1-based index.
  Statement &bind(int i, const std::string &v);
  Statement &bind(int i, int64_t v);
  Statement &bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Statement &bind_double(int i, double v);  // non-finite -> NULL
  Statement &bind_null(int i);

  /**
   * Steps once. Returns true when a row is available, false when done.
   * SQLITE_BUSY before the first row is retried (reset + back-off) until
   * the busy deadline; other errors throw TuningLogError.
   */
  bool step();
  /** Steps until done (for INSERT/UPDATE/DDL). */
  void run();
  void reset();

  std::string column_text(int i) const;
  int64_t column_int64(int i) const;
  double column_double(int i) const;   // NULL -> +infinity
  bool column_is_null(int i) const;

 private:
  sqlite3 *db_;
  const std::string &path_;
  std::string sql_;
  sqlite3_stmt *stmt_ = nullptr;
  bool got_row_ = false;
};

/** Executes one or more statements without results (throws on error). */
void exec(sqlite3 *db, const std::string &path, const char *sql);

/**
 * A write transaction started with BEGIN IMMEDIATE (retried on SQLITE_BUSY
 * up to the busy deadline). Rolls back on destruction unless commit() ran.
 */
class WriteTransaction {
 public:
  WriteTransaction(sqlite3 *db, const std::string &path);
  ~WriteTransaction();
  WriteTransaction(const WriteTransaction &) = delete;
  WriteTransaction &operator=(const WriteTransaction &) = delete;
  void commit();

 private:
  sqlite3 *db_;
  const std::string &path_;
  bool done_ = false;
};

/** How long BUSY is retried on top of sqlite3_busy_timeout, milliseconds. */
inline constexpr int kBusyTimeoutMs = 30000;

}  // namespace tetune::tuning_log::internal
