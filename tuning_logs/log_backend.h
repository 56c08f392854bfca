// LogBackend: the database under a TuningLog, a SQLite file (sqlite_backend.h)
// or a PostgreSQL database (postgres_backend.h). Internal to tuning_logs.
//
// The log's logic (schema checks, the ranking of best(), JSONL export and
// import) is written once, in database.cc and schema.cc, as SQL that both
// databases run the same way; a backend only runs it. That SQL numbers its
// parameters ?1..?N (PostgresBackend turns them into $1..$N), returns new ids
// with RETURNING, and sorts text in C++ rather than with ORDER BY (the two
// databases collate text differently).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tetune::tuning_log {

/** A prepared query. Every error raises tetune::TuningLogError naming the log. */
class LogStatement {
 public:
  virtual ~LogStatement() = default;

  // Bind by 1-based parameter number.
  virtual LogStatement &bind(int i, const std::string &v) = 0;
  virtual LogStatement &bind(int i, int64_t v) = 0;
  LogStatement &bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  virtual LogStatement &bind_double(int i, double v) = 0;  ///< non-finite -> NULL
  virtual LogStatement &bind_null(int i) = 0;

  /** Runs the query on the first call; true while a row is available. */
  virtual bool step() = 0;
  /** Steps until done (INSERT / UPDATE / DDL). */
  void run() {
    while (step()) {
    }
  }
  /** Back to before the first step(), bindings cleared. */
  virtual void reset() = 0;

  // Columns of the current row, 0-based.
  virtual std::string column_text(int i) const = 0;
  virtual int64_t column_int64(int i) const = 0;
  virtual double column_double(int i) const = 0;  ///< NULL -> +infinity
  virtual bool column_is_null(int i) const = 0;
};

/** One open database. Non-copyable; closed by its destructor. */
class LogBackend {
 public:
  virtual ~LogBackend() = default;
  LogBackend(const LogBackend &) = delete;
  LogBackend &operator=(const LogBackend &) = delete;

  /** The path or URI as messages show it (a URI's password as "***"). */
  const std::string &name() const { return name_; }

  virtual std::unique_ptr<LogStatement> prepare(const std::string &sql) = 0;
  /** Runs statements without results (several, separated by ';'). */
  virtual void exec(const std::string &sql) = 0;

  /**
   * Starts a write transaction that holds the log's one write lock until
   * commit() or rollback(): writers take turns, as SQLite's BEGIN IMMEDIATE
   * makes them, so a duplicate check and the insert after it see the same
   * records. Waits for the lock (SQLite: up to its busy timeout).
   */
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;

  /** Names of the tables in the log's database (its schema), the database's own left out. */
  virtual std::vector<std::string> table_names() = 0;
  /** Column definition of records.id: an integer key that only grows. */
  virtual const char *id_column_sql() const = 0;
  /**
   * Called once the database is known to be empty or a tuning log, before
   * anything is written into it (SQLite switches to its WAL journal here).
   */
  virtual void prepare_for_writing() {}
  /** "ok" when the database finds nothing wrong, else what it found. */
  virtual std::string integrity_check() = 0;

 protected:
  explicit LogBackend(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

/** A write transaction (LogBackend::begin_write) rolled back unless commit() runs. */
class WriteTransaction {
 public:
  explicit WriteTransaction(LogBackend &backend) : backend_(backend) { backend_.begin_write(); }
  ~WriteTransaction() {
    if (!done_) backend_.rollback();
  }
  WriteTransaction(const WriteTransaction &) = delete;
  WriteTransaction &operator=(const WriteTransaction &) = delete;
  void commit() {
    backend_.commit();
    done_ = true;
  }

 private:
  LogBackend &backend_;
  bool done_ = false;
};

}  // namespace tetune::tuning_log
