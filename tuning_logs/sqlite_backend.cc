#include "tuning_logs/sqlite_backend.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <tuple>

#include "base/errors.h"
#include "tuning_logs/sqlite_util.h"

namespace tetune::tuning_log {
namespace {

using internal::Statement;

// Files that passed quick_check in this process, by identity and the state
// of the main file (a WAL log's main file changes only at checkpoints).
using FileState = std::tuple<dev_t, ino_t, off_t, int64_t, int64_t>;

bool file_state(const std::string &path, FileState *out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || st.st_size == 0) return false;
  *out = {st.st_dev, st.st_ino, st.st_size, static_cast<int64_t>(st.st_mtim.tv_sec),
          static_cast<int64_t>(st.st_mtim.tv_nsec)};
  return true;
}

std::mutex checked_mu;
std::set<FileState> &checked_files() {
  static std::set<FileState> s;
  return s;
}

// Refuses to write into an existing file that fails PRAGMA quick_check: a
// write into a damaged b-tree can spread the damage over records still intact.
void check_before_write(sqlite3 *db, const std::string &path) {
  FileState state;
  if (!file_state(path, &state)) return;  // new or empty: nothing to check
  {
    std::lock_guard<std::mutex> lk(checked_mu);
    if (checked_files().count(state)) return;
  }
  std::string result;
  try {
    Statement st(db, path, "PRAGMA quick_check");
    while (st.step()) result += (result.empty() ? "" : "; ") + st.column_text(0);
  } catch (const TuningLogError &e) {
    result = e.what();
  }
  if (result != "ok") {
    if (result.size() > 600) result = result.substr(0, 600) + " ...";
    throw TuningLogError("tuning log '" + path +
                         "': the database is damaged (PRAGMA quick_check: " + result +
                         "); refusing to write into it, nothing was written. Restore it from a copy, "
                         "or save what is readable with `sqlite3 " + path + " .recover`");
  }
  std::lock_guard<std::mutex> lk(checked_mu);
  checked_files().insert(state);
}

// "file:" URI of a path (RFC 3986 escapes for what SQLite's URI parser reads).
std::string file_uri(const std::string &path, bool immutable) {
  std::string uri = path.size() > 0 && path[0] == '/' ? "file://" : "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", static_cast<unsigned char>(c));
      uri += b;
    } else {
      uri += c;
    }
  }
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

// Opens `path` read-only and reads its schema table once; returns the
// connection or, through *rc, the SQLite result code of the failure.
sqlite3 *try_open_read_only(const std::string &path, bool immutable, int *rc, std::string *msg) {
  sqlite3 *db = nullptr;
  *rc = sqlite3_open_v2(file_uri(path, immutable).c_str(), &db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (*rc == SQLITE_OK) {
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, internal::kBusyTimeoutMs);
    sqlite3_stmt *st = nullptr;
    *rc = sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master", -1, &st, nullptr);
    if (*rc == SQLITE_OK) {
      int step = sqlite3_step(st);
      *rc = step == SQLITE_ROW ? SQLITE_OK : step;
    }
    sqlite3_finalize(st);
    if (*rc == SQLITE_OK) return db;
  }
  *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(*rc);
  sqlite3_close_v2(db);
  return nullptr;
}

}  // namespace

SqliteBackend::SqliteBackend(sqlite3 *db, const std::string &path) : LogBackend(path), db_(db) {}

SqliteBackend::~SqliteBackend() {
  sqlite3_close_v2(db_);
  // A writable log passed check_before_write when opened; what changed it
  // since is this process's own writes (and the WAL checkpoint on close),
  // so its new state needs no second quick_check on the next open.
  FileState state;
  if (checked_ && file_state(name(), &state)) {
    std::lock_guard<std::mutex> lk(checked_mu);
    checked_files().insert(state);
  }
}

std::unique_ptr<SqliteBackend> SqliteBackend::open(const std::string &path) {
  sqlite3 *db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                               SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    throw TuningLogError("tuning log '" + path + "': cannot open: " + msg);
  }
  std::unique_ptr<SqliteBackend> log(new SqliteBackend(db, path));  // closes db if anything below throws
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, internal::kBusyTimeoutMs);
  check_before_write(db, log->name());
  log->checked_ = true;
  return log;
}

std::unique_ptr<SqliteBackend> SqliteBackend::open_read_only(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw TuningLogError("tuning log '" + path + "': no such tuning log");
    throw TuningLogError("tuning log '" + path + "': cannot open: " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw TuningLogError("tuning log '" + path + "': is a directory, not a tuning log");
  int rc = SQLITE_OK;
  std::string msg;
  sqlite3 *db = try_open_read_only(path, false, &rc, &msg);
  // A WAL log needs its -shm file even to be read; in a directory this
  // process cannot write, SQLite cannot create it (SQLITE_READONLY_DIRECTORY
  // or SQLITE_CANTOPEN). Without a -wal file holding pages, every committed
  // page is in the main file and no writer is active (it would have created
  // the -wal), so the file is read as immutable (https://www.sqlite.org/wal.html,
  // "Read-Only Databases").
  const int primary = rc & 0xff;
  if (!db && (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN)) {
    struct stat wal;
    if (::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) {
      throw TuningLogError("tuning log '" + path + "': cannot read this WAL-mode log: its directory is not writable, "
                           "so SQLite cannot create '" + path + "-shm', and '" + path +
                           "-wal' holds pages not yet in the main file (" + msg +
                           "). Ask its owner to run `sqlite3 " + path +
                           " 'PRAGMA wal_checkpoint(TRUNCATE)'`, or copy both files to a writable directory");
    }
    db = try_open_read_only(path, true, &rc, &msg);
  }
  if (!db) {
    throw TuningLogError("tuning log '" + path + "': cannot open read-only: " + msg + " (sqlite code " +
                         std::to_string(rc) + ")");
  }
  return std::unique_ptr<SqliteBackend>(new SqliteBackend(db, path));
}

std::unique_ptr<LogStatement> SqliteBackend::prepare(const std::string &sql) {
  return std::make_unique<Statement>(db_, name(), sql.c_str());
}

void SqliteBackend::exec(const std::string &sql) { internal::exec(db_, name(), sql.c_str()); }

void SqliteBackend::begin_write() { internal::begin_immediate(db_, name()); }

void SqliteBackend::commit() { internal::commit(db_, name()); }

void SqliteBackend::rollback() noexcept { internal::rollback(db_); }

std::vector<std::string> SqliteBackend::table_names() {
  Statement st(db_, name(), "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.column_text(0));
  return out;
}

void SqliteBackend::prepare_for_writing() {
  // In-memory databases report journal mode "memory"; anything else is tolerated too.
  Statement(db_, name(), "PRAGMA journal_mode=WAL").run();
  internal::exec(db_, name(), "PRAGMA synchronous=NORMAL");
}

std::string SqliteBackend::integrity_check() {
  Statement st(db_, name(), "PRAGMA integrity_check");
  std::string out;
  while (st.step()) {
    if (!out.empty()) out += "\n";
    out += st.column_text(0);
  }
  return out;
}

}  // namespace tetune::tuning_log
