// Thin RAII helpers over the SQLite C API (internal to tuning_logs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tuning_logs/log_backend.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tetune::tuning_log::internal {

/** Throws tetune::TuningLogError: "<path>: <what>: <sqlite message> (code N)". */
[[noreturn]] void throw_sqlite(sqlite3 *db, const std::string &path,
                               const std::string &what, int rc);

/**
 * A prepared statement; finalised on destruction. Errors name `path`, which
 * must outlive the statement.
 */
class Statement : public LogStatement {
 public:
  Statement(sqlite3 *db, const std::string &path, const char *sql);
  ~Statement() override;
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;

  // Bind by 1-based index.
  Statement &bind(int i, const std::string &v) override;
  Statement &bind(int i, int64_t v) override;
  Statement &bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Statement &bind_double(int i, double v) override;  // non-finite -> NULL
  Statement &bind_null(int i) override;

  /**
   * Steps once. Returns true when a row is available, false when done.
   * SQLITE_BUSY before the first row is retried (reset + back-off) until
   * the busy deadline; other errors throw TuningLogError.
   */
  bool step() override;
  void reset() override;

  std::string column_text(int i) const override;
  int64_t column_int64(int i) const override;
  double column_double(int i) const override;   // NULL -> +infinity
  bool column_is_null(int i) const override;

 private:
  sqlite3 *db_;
  const std::string &path_;
  std::string sql_;
  sqlite3_stmt *stmt_ = nullptr;
  bool got_row_ = false;
};

/** Executes one or more statements without results (throws on error). */
void exec(sqlite3 *db, const std::string &path, const char *sql);

/** Starts a write transaction with BEGIN IMMEDIATE (retried on SQLITE_BUSY up to the busy deadline). */
void begin_immediate(sqlite3 *db, const std::string &path);
/** Commits, retrying while COMMIT reports SQLITE_BUSY (up to the busy deadline). */
void commit(sqlite3 *db, const std::string &path);
/** Rolls back an open transaction; does nothing outside one. */
void rollback(sqlite3 *db) noexcept;

/** How long BUSY is retried on top of sqlite3_busy_timeout, milliseconds. */
inline constexpr int kBusyTimeoutMs = 30000;

}  // namespace tetune::tuning_log::internal
