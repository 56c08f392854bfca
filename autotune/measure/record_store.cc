// The only autotune translation unit that sees tetune::tuning_log (no te headers here).
#include "autotune/measure/record_store.h"

#include <algorithm>

#include "tuning_logs/database.h"
#include "tuning_logs/error_code.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/records.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace autotune {

static_assert(static_cast<int>(ErrorCode::kUnknown) == static_cast<int>(tuning_log::ErrorCode::kUnknown), "ErrorCode");
static_assert(static_cast<int>(ErrorCode::kInvalidSchedule) == static_cast<int>(tuning_log::ErrorCode::kInvalidSchedule), "");
static_assert(static_cast<int>(ErrorCode::kCrash) == static_cast<int>(tuning_log::ErrorCode::kCrash), "ErrorCode");
static_assert(static_cast<int>(ErrorCode::kWrongAnswer) == static_cast<int>(tuning_log::ErrorCode::kWrongAnswer), "");
static_assert(static_cast<int>(ErrorCode::kTimeout) == static_cast<int>(tuning_log::ErrorCode::kTimeout), "ErrorCode");
static_assert(static_cast<int>(ErrorCode::kCompileError) == static_cast<int>(tuning_log::ErrorCode::kCompileError), "");

std::string error_name(ErrorCode c) { return tuning_log::to_string(static_cast<tuning_log::ErrorCode>(c)); }
double median_of(std::vector<double> v) { return tuning_log::median_of(std::move(v)); }

struct RecordStore::Impl {
  tuning_log::TuningLog db;
  std::vector<tuning_log::TuningLog> read_also;  // opened read-only
};

RecordStore::RecordStore(const std::string &db_path, const std::string &workload_key, const std::string &op_name,
                         const std::string &description_json, int threads, const std::vector<std::string> &read_also)
    : RecordStore(db_path, workload_key, op_name, description_json, tuning_log::host_target_info(std::max(1, threads)),
                  read_also) {}

RecordStore::RecordStore(const std::string &db_path, const std::string &workload_key, const std::string &op_name,
                         const std::string &description_json, const tuning_log::TargetInfo &t,
                         const std::vector<std::string> &read_also)
    : workload_key_(workload_key) {
  path_ = db_path.empty() ? tuning_log::prepare_user_log_path() : db_path;
  tuning_log::refuse_writing_shipped_log(path_);
  impl_.reset(new Impl{tuning_log::TuningLog::open(path_), {}});
  target_key_ = t.key();
  impl_->db.upsert_workload({workload_key, op_name, description_json});
  impl_->db.upsert_target(t);
  for (const auto &p : read_also)
    if (!p.empty() && !tuning_log::same_file(p, path_)) impl_->read_also.push_back(tuning_log::TuningLog::open_read_only(p));
}
RecordStore::~RecordStore() = default;

int64_t RecordStore::add(StoredRecord r) {
  tuning_log::MeasureRecord m;
  m.workload_key = workload_key_;
  m.target_key = target_key_;
  m.schedule_json = r.schedule_json;
  m.costs_ms = r.costs_ms;
  m.median_ms = r.median_ms;
  m.error_code = r.error_code;
  m.error_msg = r.error_msg;
  m.gflops = r.gflops;
  m.timestamp_unix_ms = r.timestamp_unix_ms ? r.timestamp_unix_ms : tuning_log::now_unix_ms();
  m.tuner_version = r.tuner_version;
  m.trial_index = r.trial_index;
  return impl_->db.add_record(m);
}

namespace {
StoredRecord stored(const tuning_log::MeasureRecord &m) {
  StoredRecord r;
  r.id = m.id;
  r.schedule_json = m.schedule_json;
  r.costs_ms = m.costs_ms;
  r.median_ms = m.median_ms;
  r.error_code = m.error_code;
  r.error_msg = m.error_msg;
  r.gflops = m.gflops;
  r.timestamp_unix_ms = m.timestamp_unix_ms;
  r.tuner_version = m.tuner_version;
  r.trial_index = m.trial_index;
  return r;
}
}  // namespace

std::vector<StoredRecord> RecordStore::records() const {
  std::vector<StoredRecord> out;
  for (const auto &m : impl_->db.records(workload_key_, target_key_)) out.push_back(stored(m));
  for (const auto &log : impl_->read_also)
    for (const auto &m : log.records(workload_key_, target_key_)) out.push_back(stored(m));
  return out;
}

std::vector<StoredRecord> RecordStore::best(int k) const {
  std::vector<StoredRecord> out;
  for (const auto &m : impl_->db.best(workload_key_, target_key_, k)) out.push_back(stored(m));
  for (const auto &log : impl_->read_also)
    for (const auto &m : log.best(workload_key_, target_key_, k - static_cast<int>(out.size()))) out.push_back(stored(m));
  return out;
}

int64_t RecordStore::count() const {
  int64_t n = impl_->db.count_records(workload_key_, target_key_);
  for (const auto &log : impl_->read_also) n += log.count_records(workload_key_, target_key_);
  return n;
}
std::string RecordStore::integrity_check() const { return impl_->db.integrity_check(); }

}  // namespace autotune
}  // namespace tetune
