#include "tuning_logs/postgres_backend.h"

#include <libpq-fe.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "base/errors.h"
#include "tuning_logs/log_uri.h"

namespace tetune::tuning_log {
namespace {

// Key of the advisory lock every write transaction takes ("tetunelg").
constexpr const char *kWriteLockKey = "8387237928759553127";

struct ResultDeleter {
  void operator()(PGresult *r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

std::string trimmed(const char *message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Raises unless `r` holds a successful command or rows.
void check(const Result &r, PGconn *conn, const std::string &name, const std::string &what) {
  ExecStatusType status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  std::string msg = trimmed(r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn));
  throw TuningLogError("tuning log '" + name + "': " + what + ": " + msg);
}

// ?N (SQLite's numbered parameters, log_backend.h) -> $N; a bare ? takes the next number.
std::string dollar_parameters(const std::string &sql) {
  std::string out;
  int next = 0;
  bool in_literal = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (c == '\'') in_literal = !in_literal;
    if (c != '?' || in_literal) {
      out += c;
      continue;
    }
    size_t digits = i + 1;
    while (digits < sql.size() && std::isdigit(static_cast<unsigned char>(sql[digits]))) ++digits;
    out += '$' + (digits > i + 1 ? sql.substr(i + 1, digits - i - 1) : std::to_string(++next));
    i = digits - 1;
  }
  return out;
}

// A query run with PQexecParams on its first step(); parameters and rows as text.
class PgStatement : public LogStatement {
 public:
  PgStatement(PGconn *conn, const std::string &name, const std::string &sql)
      : conn_(conn), name_(name), sql_(sql), pg_sql_(dollar_parameters(sql)) {}

  PgStatement &bind(int i, const std::string &v) override { return set(i, v); }
  PgStatement &bind(int i, int64_t v) override { return set(i, std::to_string(v)); }
  PgStatement &bind_double(int i, double v) override {
    if (!std::isfinite(v)) return set(i, std::nullopt);
    char buf[32];
    auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;  // shortest text that reads back exactly
    return set(i, std::string(buf, end));
  }
  PgStatement &bind_null(int i) override { return set(i, std::nullopt); }

  bool step() override {
    if (!result_) {
      std::vector<const char *> values;
      for (const auto &p : params_) values.push_back(p ? p->c_str() : nullptr);
      result_.reset(PQexecParams(conn_, pg_sql_.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                 nullptr, nullptr, 0));
      check(result_, conn_, name_, "executing '" + sql_ + "'");
      row_ = -1;
    }
    return ++row_ < PQntuples(result_.get());
  }

  void reset() override {
    result_.reset();
    params_.clear();
  }

  std::string column_text(int i) const override {
    return std::string(PQgetvalue(result_.get(), row_, i), PQgetlength(result_.get(), row_, i));
  }
  int64_t column_int64(int i) const override { return number<int64_t>(i); }
  double column_double(int i) const override {
    return column_is_null(i) ? std::numeric_limits<double>::infinity() : number<double>(i);
  }
  bool column_is_null(int i) const override { return PQgetisnull(result_.get(), row_, i); }

 private:
  PgStatement &set(int i, std::optional<std::string> v) {
    if (params_.size() < static_cast<size_t>(i)) params_.resize(i);
    params_[i - 1] = std::move(v);
    return *this;
  }

  template <typename T>
  T number(int i) const {
    T v{};
    if (column_is_null(i)) return v;
    const char *text = PQgetvalue(result_.get(), row_, i);
    const char *end = text + PQgetlength(result_.get(), row_, i);
    auto [ptr, ec] = std::from_chars(text, end, v);
    if (ec != std::errc() || ptr != end) {
      throw TuningLogError("tuning log '" + name_ + "': column " + std::to_string(i) + " of '" + sql_ +
                           "' holds '" + std::string(text, end) + "', not a number");
    }
    return v;
  }

  PGconn *conn_;
  const std::string &name_;
  std::string sql_, pg_sql_;
  std::vector<std::optional<std::string>> params_;
  Result result_;
  int row_ = -1;
};

void ignore_notice(void *, const char *) {}

}  // namespace

std::unique_ptr<PostgresBackend> PostgresBackend::connect(const std::string &uri, bool read_only) {
  const std::string name = redact_location(uri);
  // Values before "dbname" are defaults that the URI's own parameters override.
  const char *keys[] = {"connect_timeout", "fallback_application_name", "client_encoding", "dbname", nullptr};
  const char *values[] = {"10", "tetune", "UTF8", uri.c_str(), nullptr};
  PGconn *conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = conn ? trimmed(PQerrorMessage(conn)) : "out of memory";
    PQfinish(conn);
    throw TuningLogError("tuning log '" + name + "': cannot connect to PostgreSQL: " + hide_passwords(msg, uri));
  }
  PQsetNoticeProcessor(conn, ignore_notice, nullptr);  // "relation already exists, skipping" and the like
  std::unique_ptr<PostgresBackend> log(new PostgresBackend(conn, name));
  // Exact doubles in text form on every server version.
  log->exec(read_only ? "SET extra_float_digits = 3; SET default_transaction_read_only = on"
                      : "SET extra_float_digits = 3");
  return log;
}

PostgresBackend::~PostgresBackend() { PQfinish(conn_); }

std::unique_ptr<LogStatement> PostgresBackend::prepare(const std::string &sql) {
  return std::make_unique<PgStatement>(conn_, name(), sql);
}

void PostgresBackend::exec(const std::string &sql) {
  Result r(PQexec(conn_, sql.c_str()));
  check(r, conn_, name(), "executing '" + sql + "'");
}

void PostgresBackend::begin_write() {
  exec(std::string("BEGIN; SELECT pg_advisory_xact_lock(") + kWriteLockKey + ")");
}

void PostgresBackend::commit() {
  Result r(PQexec(conn_, "COMMIT"));
  check(r, conn_, name(), "committing a transaction");
  // COMMIT of a transaction that failed ends it with ROLLBACK, without an error.
  if (std::string(PQcmdStatus(r.get())) != "COMMIT") {
    throw TuningLogError("tuning log '" + name() + "': the transaction was rolled back (" + PQcmdStatus(r.get()) + ")");
  }
}

void PostgresBackend::rollback() noexcept {
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
}

std::vector<std::string> PostgresBackend::table_names() {
  PgStatement st(conn_, name(), "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()");
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.column_text(0));
  return out;
}

std::string PostgresBackend::integrity_check() {
  try {
    PgStatement(conn_, name(),
                "SELECT (SELECT COUNT(*) FROM meta) + (SELECT COUNT(*) FROM workloads) + "
                "(SELECT COUNT(*) FROM targets) + (SELECT COUNT(*) FROM records)")
        .run();
  } catch (const TuningLogError &e) {
    return e.what();
  }
  return "ok";
}

}  // namespace tetune::tuning_log
