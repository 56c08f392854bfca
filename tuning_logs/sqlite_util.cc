#include "tuning_logs/sqlite_util.h"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "base/errors.h"

namespace tetune::tuning_log::internal {
namespace {

using Clock = std::chrono::steady_clock;

bool is_busy(int rc) {
  int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

void back_off(int attempt) {
  int ms = std::min(50, 1 + attempt);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

void throw_sqlite(sqlite3 *db, const std::string &path, const std::string &what,
                  int rc) {
  std::string msg = "tuning log '" + path + "': " + what + ": ";
  msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  msg += " (sqlite code " + std::to_string(rc) + ")";
  throw TuningLogError(msg);
}

Statement::Statement(sqlite3 *db, const std::string &path, const char *sql)
    : db_(db), path_(path), sql_(sql) {
  int rc = sqlite3_prepare_v2(db_, sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, "preparing '" + sql_ + "'", rc);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement &Statement::bind(int i, const std::string &v) {
  int rc = sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()),
                             SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, "binding a parameter", rc);
  return *this;
}

Statement &Statement::bind(int i, int64_t v) {
  int rc = sqlite3_bind_int64(stmt_, i, v);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, "binding a parameter", rc);
  return *this;
}

Statement &Statement::bind_double(int i, double v) {
  int rc = std::isfinite(v) ? sqlite3_bind_double(stmt_, i, v)
                            : sqlite3_bind_null(stmt_, i);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, "binding a parameter", rc);
  return *this;
}

Statement &Statement::bind_null(int i) {
  int rc = sqlite3_bind_null(stmt_, i);
  if (rc != SQLITE_OK) throw_sqlite(db_, path_, "binding a parameter", rc);
  return *this;
}

bool Statement::step() {
  auto deadline = Clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 0;; ++attempt) {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
      got_row_ = true;
      return true;
    }
    if (rc == SQLITE_DONE) return false;
    if (is_busy(rc) && !got_row_ && sqlite3_get_autocommit(db_) &&
        Clock::now() < deadline) {
      sqlite3_reset(stmt_);
      back_off(attempt);
      continue;
    }
    throw_sqlite(db_, path_, "executing '" + sql_ + "'", rc);
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  got_row_ = false;
}

std::string Statement::column_text(int i) const {
  const unsigned char *p = sqlite3_column_text(stmt_, i);
  int n = sqlite3_column_bytes(stmt_, i);
  return p ? std::string(reinterpret_cast<const char *>(p), n) : std::string();
}

int64_t Statement::column_int64(int i) const {
  return sqlite3_column_int64(stmt_, i);
}

double Statement::column_double(int i) const {
  if (column_is_null(i)) return std::numeric_limits<double>::infinity();
  return sqlite3_column_double(stmt_, i);
}

bool Statement::column_is_null(int i) const {
  return sqlite3_column_type(stmt_, i) == SQLITE_NULL;
}

void exec(sqlite3 *db, const std::string &path, const char *sql) {
  auto deadline = Clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 0;; ++attempt) {
    char *err = nullptr;
    int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
    sqlite3_free(err);
    if (rc == SQLITE_OK) return;
    if (is_busy(rc) && sqlite3_get_autocommit(db) && Clock::now() < deadline) {
      back_off(attempt);
      continue;
    }
    throw_sqlite(db, path, std::string("executing '") + sql + "'", rc);
  }
}

void begin_immediate(sqlite3 *db, const std::string &path) { exec(db, path, "BEGIN IMMEDIATE"); }

void rollback(sqlite3 *db) noexcept {
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
}

void commit(sqlite3 *db, const std::string &path) {
  auto deadline = Clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 0;; ++attempt) {
    int rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    // COMMIT may report BUSY while the transaction stays open: retry it.
    if (is_busy(rc) && !sqlite3_get_autocommit(db) && Clock::now() < deadline) {
      back_off(attempt);
      continue;
    }
    throw_sqlite(db, path, "committing a transaction", rc);
  }
}

}  // namespace tetune::tuning_log::internal
