#include "tuning_logs/database.h"

#include <algorithm>
#include <cmath>
#include <istream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>

#include "base/errors.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/log_backend.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/log_uri.h"
#include "tuning_logs/postgres_backend.h"
#include "tuning_logs/schema.h"
#include "tuning_logs/sqlite_backend.h"

namespace tetune::tuning_log {
namespace {

// The SQL of this file runs unchanged on SQLite and on PostgreSQL (log_backend.h
// says how it is written so): one ranking, one import, whichever the backend.

constexpr const char *kTargetColumns =
    "SELECT key, kind, cpu_model, features, threads, library_versions, device FROM targets";

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
// A schedule timed inside its model (tuner_version kInModelTunerVersion)
// costs the middle of those records alone and ranks before those timed
// alone, except those timed alone after the workload's last in-model record
// (fresh: a later tuning's, not yet met in the model), which rank first.
// srank then puts re-measured schedules (n > 1) before those measured once
// (see TuningLog::best for why), then orders by cost.
// `records_where` (an SQL condition on records' columns) picks the records
// ranked. Every window below partitions within one (workload, target), so
// restricting the records to one gives that one's ranks unchanged, and the
// database reads its rows by index where it would otherwise sort the whole
// log by schedule text on every call (about 80 ms per call on a 16 MB log).
std::string schedule_costs_cte(const std::string &records_where) {
  return "WITH tagged AS (SELECT workload_key, target_key, schedule_json, median_ms, id, "
         "CASE WHEN tuner_version LIKE 'tetune-in-model/%' THEN 1 ELSE 0 END AS im "
         "FROM records WHERE error_code = 0 AND median_ms IS NOT NULL AND (" +
         records_where + ")), "
         "scoped AS (SELECT workload_key, target_key, schedule_json, median_ms, id, im, "
         "MAX(im) OVER (PARTITION BY workload_key, target_key, schedule_json) AS sim, "
         "MAX(id) OVER (PARTITION BY workload_key, target_key, schedule_json) AS newest, "
         "MAX(CASE WHEN im = 1 THEN id END) OVER (PARTITION BY workload_key, target_key) AS last_im FROM tagged), "
         "ok AS (SELECT workload_key, target_key, schedule_json, median_ms, id, sim, "
         "CASE WHEN sim = 0 AND newest > COALESCE(last_im, newest) THEN 1 ELSE 0 END AS fresh, "
         "ROW_NUMBER() OVER (PARTITION BY workload_key, target_key, schedule_json ORDER BY median_ms, id) AS pos, "
         "COUNT(*) OVER (PARTITION BY workload_key, target_key, schedule_json) AS n "
         "FROM scoped WHERE im = sim), "
         "costs AS (SELECT workload_key AS c_wk, target_key AS c_tk, schedule_json AS c_sched, median_ms AS cost, "
         "id AS rep_id, ROW_NUMBER() OVER (PARTITION BY workload_key, target_key ORDER BY fresh DESC, sim DESC, n > 1 DESC, "
         "median_ms, id) AS srank FROM ok WHERE pos = n / 2 + 1) ";
}

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

MeasureRecord read_record(const LogStatement &st, const std::string &path) {
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

TargetInfo read_target(const LogStatement &st) {
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

}  // namespace

// ---------------------------------------------------------------- lifetime

TuningLog::TuningLog(std::unique_ptr<LogBackend> backend, bool read_only)
    : backend_(std::move(backend)), path_(backend_->name()), read_only_(read_only) {}

TuningLog::TuningLog(TuningLog &&other) noexcept = default;
TuningLog &TuningLog::operator=(TuningLog &&other) noexcept = default;
TuningLog::~TuningLog() = default;

LogBackend &TuningLog::backend() const {
  if (!backend_) {
    throw TuningLogError("tuning log '" + path_ +
                         "': used after being moved from");
  }
  return *backend_;
}

LogBackend &TuningLog::writable_backend() const {
  if (read_only_) {
    throw TuningLogError("tuning log '" + path_ +
                         "': opened read-only; records go into the user's own log (--db or $TETUNE_DB)");
  }
  return backend();
}

std::unique_ptr<LogStatement> TuningLog::prepare(const std::string &sql) const { return backend().prepare(sql); }

TuningLog TuningLog::open(const std::string &path) {
  if (path.empty()) throw TuningLogError("tuning log: empty database path");
  std::unique_ptr<LogBackend> backend;
  if (is_postgres_uri(path)) backend = PostgresBackend::connect(path, /*read_only=*/false);
  else backend = SqliteBackend::open(path);
  ensure_schema(*backend);
  return TuningLog(std::move(backend), false);
}

TuningLog TuningLog::open_read_only(const std::string &path) {
  if (path.empty()) throw TuningLogError("tuning log: empty database path");
  std::unique_ptr<LogBackend> backend;
  if (is_postgres_uri(path)) backend = PostgresBackend::connect(path, /*read_only=*/true);
  else backend = SqliteBackend::open_read_only(path);
  check_schema_read_only(*backend);
  return TuningLog(std::move(backend), true);
}

std::string TuningLog::default_path() { return user_log_path(); }

// ---------------------------------------------------------------- writes

void TuningLog::upsert_workload_locked(const WorkloadInfo &w) {
  auto st = writable_backend().prepare(
      "INSERT INTO workloads (key, op_name, description_json) "
      "VALUES (?1, ?2, ?3) ON CONFLICT (key) DO UPDATE SET "
      "op_name = excluded.op_name, "
      "description_json = excluded.description_json");
  st->bind(1, w.key).bind(2, w.op_name).bind(3, w.description_json).run();
}

void TuningLog::upsert_target_locked(const TargetInfo &t) {
  auto st = writable_backend().prepare(
      "INSERT INTO targets (key, kind, cpu_model, features, threads, library_versions, device) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (key) DO NOTHING");
  st->bind(1, t.key())
      .bind(2, t.kind)
      .bind(3, t.cpu_model)
      .bind(4, t.features)
      .bind(5, t.threads)
      .bind(6, t.library_versions)
      .bind(7, t.device)
      .run();
}

int64_t TuningLog::insert_record_locked(const MeasureRecord &r) {
  auto st = writable_backend().prepare(
      "INSERT INTO records (workload_key, target_key, schedule_json, "
      "costs_ms_json, median_ms, error_code, error_msg, gflops, "
      "timestamp_unix_ms, tuner_version, trial_index) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id");
  st->bind(1, r.workload_key)
      .bind(2, r.target_key)
      .bind(3, r.schedule_json)
      .bind(4, costs_to_json(r.costs_ms))
      .bind_double(5, r.median_ms)
      .bind(6, r.error_code)
      .bind(7, r.error_msg)
      .bind_double(8, r.gflops)
      .bind(9, r.timestamp_unix_ms)
      .bind(10, r.tuner_version)
      .bind(11, r.trial_index);
  if (!st->step()) throw TuningLogError("tuning log '" + path_ + "': inserting a record returned no id");
  int64_t id = st->column_int64(0);
  st->run();
  return id;
}

void TuningLog::upsert_workload(const WorkloadInfo &w) {
  WriteTransaction tx(writable_backend());
  upsert_workload_locked(w);
  tx.commit();
}

void TuningLog::upsert_target(const TargetInfo &t) {
  WriteTransaction tx(writable_backend());
  upsert_target_locked(t);
  tx.commit();
}

int64_t TuningLog::add_record(const MeasureRecord &r) {
  if (r.error_code < 0 || r.error_code > 7) {
    throw TuningLogError("tuning log '" + path_ + "': record of workload '" +
                         r.workload_key + "' has invalid error_code " +
                         std::to_string(r.error_code));
  }
  WriteTransaction tx(writable_backend());
  int64_t id = insert_record_locked(r);
  tx.commit();
  return id;
}

// ---------------------------------------------------------------- reads

std::vector<MeasureRecord> TuningLog::records(const std::string &wk,
                                              const std::string &tk) const {
  std::string sql = std::string("SELECT ") + kRecordColumns +
                    " FROM records WHERE workload_key = ?1 AND target_key = ?2 "
                    "ORDER BY id";
  auto st = prepare(sql);
  st->bind(1, wk).bind(2, tk);
  std::vector<MeasureRecord> out;
  while (st->step()) out.push_back(read_record(*st, path_));
  return out;
}

int64_t TuningLog::count_records(const std::string &wk,
                                 const std::string &tk) const {
  auto st = prepare("SELECT COUNT(*) FROM records WHERE workload_key = ?1 AND target_key = ?2");
  st->bind(1, wk).bind(2, tk);
  st->step();
  return st->column_int64(0);
}

int64_t TuningLog::count_all_records() const {
  auto st = prepare("SELECT COUNT(*) FROM records");
  st->step();
  return st->column_int64(0);
}

std::vector<MeasureRecord> TuningLog::best(const std::string &wk,
                                           const std::string &tk,
                                           int k) const {
  std::vector<MeasureRecord> out;
  if (k <= 0) return out;
  std::string sql = schedule_costs_cte("workload_key = ?1 AND target_key = ?2") + "SELECT " + kRecordColumns +
                    " FROM records JOIN costs ON records.id = costs.rep_id ORDER BY srank LIMIT ?3";
  auto st = prepare(sql);
  st->bind(1, wk).bind(2, tk).bind(3, k);
  while (st->step()) out.push_back(read_record(*st, path_));
  return out;
}

std::optional<WorkloadInfo> TuningLog::workload(const std::string &key) const {
  auto st = prepare("SELECT key, op_name, description_json FROM workloads WHERE key = ?1");
  st->bind(1, key);
  if (!st->step()) return std::nullopt;
  return WorkloadInfo{st->column_text(0), st->column_text(1), st->column_text(2)};
}

std::optional<TargetInfo> TuningLog::target(const std::string &key) const {
  auto st = prepare(std::string(kTargetColumns) + " WHERE key = ?1");
  st->bind(1, key);
  if (!st->step()) return std::nullopt;
  return read_target(*st);
}

std::vector<TargetInfo> TuningLog::targets() const {
  auto st = prepare(kTargetColumns);
  std::vector<TargetInfo> out;
  while (st->step()) out.push_back(read_target(*st));
  // By key, sorted here: the databases collate text differently (log_backend.h).
  std::sort(out.begin(), out.end(), [](const TargetInfo &a, const TargetInfo &b) { return a.key() < b.key(); });
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
    auto st = prepare(
        "SELECT target_key, MIN(median_ms) FROM records "
        "WHERE workload_key = ?1 AND error_code = 0 AND "
        "median_ms IS NOT NULL AND target_key <> ?2 "
        "GROUP BY target_key");
    st->bind(1, wk).bind(2, want_key);
    std::vector<std::pair<std::string, double>> rows;
    while (st->step()) rows.emplace_back(st->column_text(0), st->column_double(1));
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
    // MAX(op_name): one value per workload (workloads.key is its primary key)
    auto st = prepare(
        "SELECT r.workload_key, MAX(COALESCE(w.op_name, '')), r.target_key, "
        "COUNT(*), SUM(CASE WHEN r.error_code = 0 THEN 1 ELSE 0 END), "
        "MIN(CASE WHEN r.error_code = 0 THEN r.median_ms END) "
        "FROM records r LEFT JOIN workloads w ON w.key = r.workload_key "
        "GROUP BY r.workload_key, r.target_key");
    while (st->step()) {
      WorkloadSummary s;
      s.workload_key = st->column_text(0);
      s.op_name = st->column_text(1);
      s.target_key = st->column_text(2);
      s.num_records = st->column_int64(3);
      s.num_valid = st->column_int64(4);
      if (!st->column_is_null(5)) s.best_median_ms = st->column_double(5);
      with_records.insert(s.workload_key);
      out.push_back(std::move(s));
    }
  }
  {
    auto st = prepare("SELECT key, op_name FROM workloads");
    while (st->step()) {
      std::string key = st->column_text(0);
      if (with_records.count(key)) continue;
      WorkloadSummary s;
      s.workload_key = key;
      s.op_name = st->column_text(1);
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
  // --top: every successful record of the `top` best-ranked schedules (schedule_costs_cte)
  std::string sql = schedule_costs_cte("(CAST(?1 AS TEXT) IS NULL OR workload_key = ?1) AND "
                                       "(CAST(?2 AS TEXT) IS NULL OR target_key = ?2)") +
                    "SELECT " + kRecordColumns +
                    " FROM records LEFT JOIN costs ON c_wk = workload_key AND c_tk = target_key "
                    "AND c_sched = schedule_json "
                    "WHERE (CAST(?1 AS TEXT) IS NULL OR workload_key = ?1) "
                    "AND (CAST(?2 AS TEXT) IS NULL OR target_key = ?2) "
                    "AND (?3 = 0 OR error_code = 0) "
                    "AND (CAST(?4 AS BIGINT) IS NULL OR (error_code = 0 AND srank <= ?4)) ORDER BY id";
  auto st = prepare(sql);
  if (filter.workload_key) st->bind(1, *filter.workload_key);
  else st->bind_null(1);
  if (filter.target_key) st->bind(2, *filter.target_key);
  else st->bind_null(2);
  st->bind(3, filter.only_valid ? 1 : 0);
  if (filter.top) st->bind(4, static_cast<int64_t>(*filter.top));
  else st->bind_null(4);

  std::map<std::string, std::optional<WorkloadInfo>> workloads;
  std::map<std::string, std::optional<TargetInfo>> targets;
  int64_t n = 0;
  while (st->step()) {
    JsonlEntry e;
    e.record = read_record(*st, path_);
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

  WriteTransaction tx(writable_backend());
  auto exists = prepare(
      "SELECT 1 FROM records WHERE workload_key = ?1 AND "
      "target_key = ?2 AND timestamp_unix_ms = ?3 AND "
      "schedule_json = ?4 LIMIT 1");
  // Each workload and target once (a round trip each on a PostgreSQL server);
  // a workload that changes between lines is upserted again, the last one winning.
  std::map<std::string, WorkloadInfo> workloads_done;
  std::set<std::string> targets_done;
  int64_t added = 0;
  for (const auto &e : entries) {
    if (e.workload) {
      auto done = workloads_done.find(e.workload->key);
      if (done == workloads_done.end() || !(done->second == *e.workload)) {
        upsert_workload_locked(*e.workload);
        workloads_done[e.workload->key] = *e.workload;
      }
    }
    if (e.target && targets_done.insert(e.target->key()).second) upsert_target_locked(*e.target);
    const MeasureRecord &r = e.record;
    exists->reset();
    exists->bind(1, r.workload_key)
        .bind(2, r.target_key)
        .bind(3, r.timestamp_unix_ms)
        .bind(4, r.schedule_json);
    bool dup = exists->step();
    exists->reset();
    if (dup) continue;
    insert_record_locked(r);
    ++added;
  }
  tx.commit();
  return added;
}

std::string TuningLog::integrity_check() const { return backend().integrity_check(); }

}  // namespace tetune::tuning_log
