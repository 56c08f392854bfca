#include "tuning_logs/database.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>

#include "base/errors.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/schema.h"
#include "tuning_logs/sqlite_util.h"

namespace tetune::tuning_log {
namespace {

using internal::Statement;
using internal::WriteTransaction;

constexpr const char *kRecordColumns =
    "id, workload_key, target_key, schedule_json, costs_ms_json, median_ms, "
    "error_code, error_msg, gflops, timestamp_unix_ms, tuner_version, "
    "trial_index";

// One row per measured schedule of a (workload, target): its cost is the
// middle record's median_ms (of n successful records of the same schedule,
// the one at 0-based position n/2 by median_ms, ties by id: the slower one of
// two), rep_id that record. A schedule measured once costs its one median; a
// schedule re-measured (autotune::TuneOptions::confirm_top) costs the middle
// of its measurements, so one lucky measurement among many does not decide.
// srank puts re-measured schedules (n > 1) before those measured once (see
// TuningLog::best for why), then orders by cost.
constexpr const char *kScheduleCostsCte =
    "WITH ok AS (SELECT workload_key, target_key, schedule_json, median_ms, id, "
    "ROW_NUMBER() OVER (PARTITION BY workload_key, target_key, schedule_json ORDER BY median_ms, id) AS pos, "
    "COUNT(*) OVER (PARTITION BY workload_key, target_key, schedule_json) AS n "
    "FROM records WHERE error_code = 0 AND median_ms IS NOT NULL), "
    "costs AS (SELECT workload_key AS c_wk, target_key AS c_tk, schedule_json AS c_sched, median_ms AS cost, "
    "id AS rep_id, ROW_NUMBER() OVER (PARTITION BY workload_key, target_key ORDER BY n > 1 DESC, median_ms, id) "
    "AS srank FROM ok WHERE pos = n / 2 + 1) ";

std::string costs_to_json(const std::vector<double> &costs) {
  nlohmann::json a = nlohmann::json::array();
  for (double c : costs) {
    if (std::isfinite(c)) a.push_back(c);
    else a.push_back(nullptr);
  }
  return a.dump();
}

std::vector<double> costs_from_json(const std::string &text,
                                    const std::string &path, int64_t id) {
  std::vector<double> out;
  try {
    auto a = nlohmann::json::parse(text);
    for (const auto &c : a) {
      out.push_back(c.is_null() ? std::numeric_limits<double>::infinity()
                                : c.get<double>());
    }
  } catch (const nlohmann::json::exception &e) {
    throw TuningLogError("tuning log '" + path + "': record " +
                         std::to_string(id) + " has unreadable costs_ms_json: " +
                         e.what());
  }
  return out;
}

MeasureRecord read_record(const Statement &st, const std::string &path) {
  MeasureRecord r;
  r.id = st.column_int64(0);
  r.workload_key = st.column_text(1);
  r.target_key = st.column_text(2);
  r.schedule_json = st.column_text(3);
  r.costs_ms = costs_from_json(st.column_text(4), path, r.id);
  r.median_ms = st.column_double(5);
  r.error_code = static_cast<int>(st.column_int64(6));
  r.error_msg = st.column_text(7);
  r.gflops = st.column_double(8);
  r.timestamp_unix_ms = st.column_int64(9);
  r.tuner_version = st.column_text(10);
  r.trial_index = static_cast<int>(st.column_int64(11));
  return r;
}

TargetInfo read_target(const Statement &st) {
  // Columns: key, kind, cpu_model, features, threads, library_versions, device
  TargetInfo t;
  t.kind = st.column_text(1);
  t.cpu_model = st.column_text(2);
  t.features = st.column_text(3);
  t.threads = static_cast<int>(st.column_int64(4));
  t.library_versions = st.column_text(5);
  t.device = st.column_text(6);
  return t;
}

std::string fmt_ms(double v) {
  std::ostringstream os;
  os << v << " ms";
  return os.str();
}

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

// ---------------------------------------------------------------- lifetime

TuningLog::TuningLog(sqlite3 *db, std::string path)
    : db_(db), path_(std::move(path)) {}

TuningLog::TuningLog(TuningLog &&other) noexcept
    : db_(other.db_), path_(std::move(other.path_)), read_only_(other.read_only_) {
  other.db_ = nullptr;
}

TuningLog &TuningLog::operator=(TuningLog &&other) noexcept {
  if (this != &other) {
    close();
    db_ = other.db_;
    path_ = std::move(other.path_);
    read_only_ = other.read_only_;
    other.db_ = nullptr;
  }
  return *this;
}

TuningLog::~TuningLog() { close(); }

void TuningLog::close() noexcept {
  if (db_) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    // A writable log passed check_before_write when opened; what changed it
    // since is this process's own writes (and the WAL checkpoint on close),
    // so its new state needs no second quick_check on the next open.
    FileState state;
    if (!read_only_ && file_state(path_, &state)) {
      std::lock_guard<std::mutex> lk(checked_mu);
      checked_files().insert(state);
    }
  }
}

sqlite3 *TuningLog::handle() const {
  if (!db_) {
    throw TuningLogError("tuning log '" + path_ +
                         "': used after being moved from");
  }
  return db_;
}

sqlite3 *TuningLog::writable_handle() const {
  if (read_only_) {
    throw TuningLogError("tuning log '" + path_ +
                         "': opened read-only; records go into the user's own log (--db or $TETUNE_DB)");
  }
  return handle();
}

TuningLog TuningLog::open(const std::string &path) {
  if (path.empty()) throw TuningLogError("tuning log: empty database path");
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
  TuningLog log(db, path);  // closes db if anything below throws
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, internal::kBusyTimeoutMs);
  check_before_write(db, log.path_);
  ensure_schema(db, log.path_);
  return log;
}

TuningLog TuningLog::open_read_only(const std::string &path) {
  if (path.empty()) throw TuningLogError("tuning log: empty database path");
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
  TuningLog log(db, path);  // closes db if anything below throws
  log.read_only_ = true;
  check_schema_read_only(db, log.path_);
  return log;
}

std::string TuningLog::default_path() { return user_log_path(); }

// ---------------------------------------------------------------- writes

void TuningLog::upsert_workload_locked(const WorkloadInfo &w) {
  Statement st(db_, path_,
               "INSERT INTO workloads (key, op_name, description_json) "
               "VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET "
               "op_name = excluded.op_name, "
               "description_json = excluded.description_json");
  st.bind(1, w.key).bind(2, w.op_name).bind(3, w.description_json).run();
}

void TuningLog::upsert_target_locked(const TargetInfo &t) {
  Statement st(db_, path_,
               "INSERT OR IGNORE INTO targets (key, kind, cpu_model, features, "
               "threads, library_versions, device) VALUES (?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, t.key())
      .bind(2, t.kind)
      .bind(3, t.cpu_model)
      .bind(4, t.features)
      .bind(5, t.threads)
      .bind(6, t.library_versions)
      .bind(7, t.device)
      .run();
}

int64_t TuningLog::insert_record_locked(const MeasureRecord &r) {
  Statement st(db_, path_,
               "INSERT INTO records (workload_key, target_key, schedule_json, "
               "costs_ms_json, median_ms, error_code, error_msg, gflops, "
               "timestamp_unix_ms, tuner_version, trial_index) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, r.workload_key)
      .bind(2, r.target_key)
      .bind(3, r.schedule_json)
      .bind(4, costs_to_json(r.costs_ms))
      .bind_double(5, r.median_ms)
      .bind(6, r.error_code)
      .bind(7, r.error_msg)
      .bind_double(8, r.gflops)
      .bind(9, r.timestamp_unix_ms)
      .bind(10, r.tuner_version)
      .bind(11, r.trial_index)
      .run();
  return sqlite3_last_insert_rowid(db_);
}

void TuningLog::upsert_workload(const WorkloadInfo &w) {
  WriteTransaction tx(writable_handle(), path_);
  upsert_workload_locked(w);
  tx.commit();
}

void TuningLog::upsert_target(const TargetInfo &t) {
  WriteTransaction tx(writable_handle(), path_);
  upsert_target_locked(t);
  tx.commit();
}

int64_t TuningLog::add_record(const MeasureRecord &r) {
  if (r.error_code < 0 || r.error_code > 7) {
    throw TuningLogError("tuning log '" + path_ + "': record of workload '" +
                         r.workload_key + "' has invalid error_code " +
                         std::to_string(r.error_code));
  }
  WriteTransaction tx(writable_handle(), path_);
  int64_t id = insert_record_locked(r);
  tx.commit();
  return id;
}

// ---------------------------------------------------------------- reads

std::vector<MeasureRecord> TuningLog::records(const std::string &wk,
                                              const std::string &tk) const {
  std::string sql = std::string("SELECT ") + kRecordColumns +
                    " FROM records WHERE workload_key = ? AND target_key = ? "
                    "ORDER BY id";
  Statement st(handle(), path_, sql.c_str());
  st.bind(1, wk).bind(2, tk);
  std::vector<MeasureRecord> out;
  while (st.step()) out.push_back(read_record(st, path_));
  return out;
}

int64_t TuningLog::count_records(const std::string &wk,
                                 const std::string &tk) const {
  Statement st(handle(), path_,
               "SELECT COUNT(*) FROM records WHERE workload_key = ? AND "
               "target_key = ?");
  st.bind(1, wk).bind(2, tk);
  st.step();
  return st.column_int64(0);
}

int64_t TuningLog::count_all_records() const {
  Statement st(handle(), path_, "SELECT COUNT(*) FROM records");
  st.step();
  return st.column_int64(0);
}

std::vector<MeasureRecord> TuningLog::best(const std::string &wk,
                                           const std::string &tk,
                                           int k) const {
  std::vector<MeasureRecord> out;
  if (k <= 0) return out;
  std::string sql = std::string(kScheduleCostsCte) + "SELECT " + kRecordColumns +
                    " FROM records JOIN costs ON records.id = costs.rep_id "
                    "WHERE c_wk = ? AND c_tk = ? ORDER BY srank LIMIT ?";
  Statement st(handle(), path_, sql.c_str());
  st.bind(1, wk).bind(2, tk).bind(3, k);
  while (st.step()) out.push_back(read_record(st, path_));
  return out;
}

std::optional<WorkloadInfo> TuningLog::workload(const std::string &key) const {
  Statement st(handle(), path_,
               "SELECT key, op_name, description_json FROM workloads "
               "WHERE key = ?");
  st.bind(1, key);
  if (!st.step()) return std::nullopt;
  return WorkloadInfo{st.column_text(0), st.column_text(1), st.column_text(2)};
}

std::optional<TargetInfo> TuningLog::target(const std::string &key) const {
  Statement st(handle(), path_,
               "SELECT key, kind, cpu_model, features, threads, "
               "library_versions, device FROM targets WHERE key = ?");
  st.bind(1, key);
  if (!st.step()) return std::nullopt;
  return read_target(st);
}

std::vector<TargetInfo> TuningLog::targets() const {
  Statement st(handle(), path_,
               "SELECT key, kind, cpu_model, features, threads, "
               "library_versions, device FROM targets ORDER BY key");
  std::vector<TargetInfo> out;
  while (st.step()) out.push_back(read_target(st));
  return out;
}

BestResult TuningLog::best_with_fallback(const std::string &wk,
                                         const TargetInfo &want, int k) const {
  BestResult res;
  const std::string want_key = want.key();
  k = std::max(1, k);
  auto exact = best(wk, want_key, k);
  if (!exact.empty()) {
    res.records = std::move(exact);
    res.exact_target = true;
    res.used_target_key = want_key;
    res.note = "exact target match";
    return res;
  }
  const int64_t exact_count = count_records(wk, want_key);

  // Candidate targets: every other target with a successful record.
  struct Candidate {
    double distance;
    double median;
    std::string key;
    TargetInfo info;
  };
  std::vector<Candidate> compatible;
  std::vector<std::string> incompatible, unknown;
  {
    Statement st(handle(), path_,
                 "SELECT target_key, MIN(median_ms) FROM records "
                 "WHERE workload_key = ? AND error_code = 0 AND "
                 "median_ms IS NOT NULL AND target_key <> ? "
                 "GROUP BY target_key ORDER BY target_key");
    st.bind(1, wk).bind(2, want_key);
    std::vector<std::pair<std::string, double>> rows;
    while (st.step()) rows.emplace_back(st.column_text(0), st.column_double(1));
    for (const auto &[key, med] : rows) {
      auto info = target(key);
      if (!info) {
        unknown.push_back(key);
        continue;
      }
      double d = compatibility_distance(want, *info);
      if (std::isfinite(d)) compatible.push_back({d, med, key, *info});
      else incompatible.push_back(key);
    }
  }
  std::string why_not_exact =
      exact_count == 0
          ? "no record for target '" + want_key + "'"
          : "no successful record among " + std::to_string(exact_count) +
                " for target '" + want_key + "'";
  if (compatible.empty()) {
    res.note = why_not_exact + "; no compatible target has a successful record"
               " for workload '" + wk + "'";
    if (!incompatible.empty()) {
      res.note += " (" + std::to_string(incompatible.size()) +
                  " incompatible target(s) skipped)";
    }
    if (!unknown.empty()) {
      res.note += " (" + std::to_string(unknown.size()) +
                  " target(s) without stored TargetInfo skipped)";
    }
    return res;
  }
  auto nearest = std::min_element(
      compatible.begin(), compatible.end(),
      [](const Candidate &a, const Candidate &b) {
        return std::tie(a.distance, a.median, a.key) <
               std::tie(b.distance, b.median, b.key);
      });
  auto rec = best(wk, nearest->key, k);
  if (rec.empty()) {  // cannot happen unless rows vanished; be explicit anyway
    res.note = why_not_exact + "; nearest target '" + nearest->key +
               "' has no successful record";
    return res;
  }
  res.records = std::move(rec);
  res.exact_target = false;
  res.used_target_key = nearest->key;
  std::ostringstream note;
  note << "FALLBACK: " << why_not_exact << "; using nearest compatible target '"
       << nearest->key << "' (distance " << nearest->distance
       << ", differs in: " << describe_difference(want, nearest->info)
       << "), best " << fmt_ms(res.record()->median_ms);
  if (!incompatible.empty()) {
    note << "; " << incompatible.size() << " incompatible target(s) skipped";
  }
  res.note = note.str();
  return res;
}

std::vector<WorkloadSummary> TuningLog::list_workloads() const {
  std::vector<WorkloadSummary> out;
  std::set<std::string> with_records;
  {
    Statement st(handle(), path_,
                 "SELECT r.workload_key, COALESCE(w.op_name, ''), r.target_key, "
                 "COUNT(*), SUM(CASE WHEN r.error_code = 0 THEN 1 ELSE 0 END), "
                 "MIN(CASE WHEN r.error_code = 0 THEN r.median_ms END) "
                 "FROM records r LEFT JOIN workloads w ON w.key = r.workload_key "
                 "GROUP BY r.workload_key, r.target_key");
    while (st.step()) {
      WorkloadSummary s;
      s.workload_key = st.column_text(0);
      s.op_name = st.column_text(1);
      s.target_key = st.column_text(2);
      s.num_records = st.column_int64(3);
      s.num_valid = st.column_int64(4);
      if (!st.column_is_null(5)) s.best_median_ms = st.column_double(5);
      with_records.insert(s.workload_key);
      out.push_back(std::move(s));
    }
  }
  {
    Statement st(handle(), path_, "SELECT key, op_name FROM workloads");
    while (st.step()) {
      std::string key = st.column_text(0);
      if (with_records.count(key)) continue;
      WorkloadSummary s;
      s.workload_key = key;
      s.op_name = st.column_text(1);
      out.push_back(std::move(s));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const WorkloadSummary &a, const WorkloadSummary &b) {
              return std::tie(a.workload_key, a.target_key) <
                     std::tie(b.workload_key, b.target_key);
            });
  return out;
}

// ---------------------------------------------------------------- JSONL

int64_t TuningLog::export_jsonl(std::ostream &out,
                                const ExportFilter &filter) const {
  if (filter.top && *filter.top <= 0)
    throw TuningLogError("tuning log '" + path_ + "': export top must be positive, got " + std::to_string(*filter.top));
  // rank = position of a valid record by median within its (workload, target)
  // --top: every successful record of the `top` best-ranked schedules (kScheduleCostsCte)
  std::string sql = std::string(kScheduleCostsCte) + "SELECT " + kRecordColumns +
                    " FROM records LEFT JOIN costs ON c_wk = workload_key AND c_tk = target_key "
                    "AND c_sched = schedule_json "
                    "WHERE (?1 IS NULL OR workload_key = ?1) "
                    "AND (?2 IS NULL OR target_key = ?2) "
                    "AND (?3 = 0 OR error_code = 0) "
                    "AND (?4 IS NULL OR (error_code = 0 AND srank <= ?4)) ORDER BY id";
  Statement st(handle(), path_, sql.c_str());
  if (filter.workload_key) st.bind(1, *filter.workload_key);
  else st.bind_null(1);
  if (filter.target_key) st.bind(2, *filter.target_key);
  else st.bind_null(2);
  st.bind(3, filter.only_valid ? 1 : 0);
  if (filter.top) st.bind(4, static_cast<int64_t>(*filter.top));
  else st.bind_null(4);

  std::map<std::string, std::optional<WorkloadInfo>> workloads;
  std::map<std::string, std::optional<TargetInfo>> targets;
  int64_t n = 0;
  while (st.step()) {
    JsonlEntry e;
    e.record = read_record(st, path_);
    auto w = workloads.find(e.record.workload_key);
    if (w == workloads.end()) {
      w = workloads.emplace(e.record.workload_key, workload(e.record.workload_key))
              .first;
    }
    auto t = targets.find(e.record.target_key);
    if (t == targets.end()) {
      t = targets.emplace(e.record.target_key, target(e.record.target_key)).first;
    }
    e.workload = w->second;
    e.target = t->second;
    out << to_jsonl_line(e) << '\n';
    if (!out) {
      throw TuningLogError("tuning log '" + path_ +
                           "': writing the JSONL export failed after " +
                           std::to_string(n) + " records");
    }
    ++n;
  }
  out.flush();
  return n;
}

int64_t TuningLog::import_jsonl(std::istream &in) {
  // Parse everything first: a malformed line must import nothing.
  std::vector<JsonlEntry> entries;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    entries.push_back(parse_jsonl_line(line, line_no));
  }
  if (in.bad()) {
    throw TuningLogError("tuning log '" + path_ +
                         "': reading the JSONL input failed after line " +
                         std::to_string(line_no));
  }

  WriteTransaction tx(writable_handle(), path_);
  Statement exists(db_, path_,
                   "SELECT 1 FROM records WHERE workload_key = ? AND "
                   "target_key = ? AND timestamp_unix_ms = ? AND "
                   "schedule_json = ? LIMIT 1");
  int64_t added = 0;
  for (const auto &e : entries) {
    if (e.workload) upsert_workload_locked(*e.workload);
    if (e.target) upsert_target_locked(*e.target);
    const MeasureRecord &r = e.record;
    exists.reset();
    exists.bind(1, r.workload_key)
        .bind(2, r.target_key)
        .bind(3, r.timestamp_unix_ms)
        .bind(4, r.schedule_json);
    bool dup = exists.step();
    exists.reset();
    if (dup) continue;
    insert_record_locked(r);
    ++added;
  }
  tx.commit();
  return added;
}

std::string TuningLog::integrity_check() const {
  Statement st(handle(), path_, "PRAGMA integrity_check");
  std::string out;
  while (st.step()) {
    if (!out.empty()) out += "\n";
    out += st.column_text(0);
  }
  return out;
}

}  // namespace tetune::tuning_log
