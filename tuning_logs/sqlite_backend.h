// SqliteBackend: a tuning log in one SQLite file (internal to tuning_logs).
//
// Many processes may open and write the same file at once (WAL journal,
// 30 s busy timeout, BEGIN IMMEDIATE with retry). Before anything is written
// into an existing file it must pass PRAGMA quick_check.
#pragma once

#include <memory>
#include <string>

#include "tuning_logs/log_backend.h"

struct sqlite3;

namespace tetune::tuning_log {

class SqliteBackend : public LogBackend {
 public:
  /**
   * Opens (creating if absent) the file at `path` for writing, with a 30 s
   * busy timeout, after PRAGMA quick_check passes on an existing file
   * (checked once per process for a given file, and again once the file
   * changes on disk). The schema is left to ensure_schema().
   * @throws tetune::TuningLogError naming `path`; the file is left unchanged.
   */
  static std::unique_ptr<SqliteBackend> open(const std::string &path);

  /**
   * Opens an existing file read-only (TuningLog::open_read_only says how a
   * WAL-mode log in a directory this process cannot write is read).
   * @throws tetune::TuningLogError "tuning log 'PATH': no such tuning log"
   *   when `path` does not exist; naming `path` for a directory or an
   *   unreadable file.
   */
  static std::unique_ptr<SqliteBackend> open_read_only(const std::string &path);

  ~SqliteBackend() override;

  std::unique_ptr<LogStatement> prepare(const std::string &sql) override;
  void exec(const std::string &sql) override;
  void begin_write() override;
  void commit() override;
  void rollback() noexcept override;
  std::vector<std::string> table_names() override;
  const char *id_column_sql() const override { return "INTEGER PRIMARY KEY AUTOINCREMENT"; }
  /** journal_mode=WAL (readers and one writer overlap), synchronous=NORMAL. */
  void prepare_for_writing() override;
  /** PRAGMA integrity_check. */
  std::string integrity_check() override;

 private:
  SqliteBackend(sqlite3 *db, const std::string &path);

  sqlite3 *db_;
  bool checked_ = false;  // opened for writing and passed check_before_write
};

}  // namespace tetune::tuning_log
