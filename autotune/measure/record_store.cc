#include "autotune/measure/record_store.h"

#include <algorithm>

#include "tuning_logs/database.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/records.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace autotune {

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
    : workload_key_(workload_key), target_(t), workload_{workload_key, op_name, description_json} {
  path_ = db_path.empty() ? tuning_log::prepare_user_log_path() : db_path;
  tuning_log::refuse_writing_shipped_log(path_);
  impl_.reset(new Impl{tuning_log::TuningLog::open(path_), {}});
  target_key_ = t.key();
  impl_->db.upsert_workload(workload_);
  impl_->db.upsert_target(t);
  for (const auto &p : read_also)
    if (!p.empty() && !tuning_log::same_file(p, path_)) impl_->read_also.push_back(tuning_log::TuningLog::open_read_only(p));
}
RecordStore::~RecordStore() = default;

int64_t RecordStore::add(tuning_log::MeasureRecord r) {
  r.workload_key = workload_key_;
  r.target_key = target_key_;
  if (!r.timestamp_unix_ms) r.timestamp_unix_ms = tuning_log::now_unix_ms();
  return impl_->db.add_record(r);
}

std::vector<tuning_log::MeasureRecord> RecordStore::records() const {
  std::vector<tuning_log::MeasureRecord> out = impl_->db.records(workload_key_, target_key_);
  for (const auto &log : impl_->read_also)
    for (auto &m : log.records(workload_key_, target_key_)) out.push_back(std::move(m));
  return out;
}

std::vector<tuning_log::MeasureRecord> RecordStore::best(int k) const {
  std::vector<tuning_log::MeasureRecord> out = impl_->db.best(workload_key_, target_key_, k);
  for (const auto &log : impl_->read_also)
    for (auto &m : log.best(workload_key_, target_key_, k - static_cast<int>(out.size()))) out.push_back(std::move(m));
  return out;
}

int64_t RecordStore::count() const {
  int64_t n = impl_->db.count_records(workload_key_, target_key_);
  for (const auto &log : impl_->read_also) n += log.count_records(workload_key_, target_key_);
  return n;
}
std::string RecordStore::integrity_check() const { return impl_->db.integrity_check(); }

std::vector<const tuning_log::TuningLog *> RecordStore::logs() const {
  std::vector<const tuning_log::TuningLog *> out{&impl_->db};
  for (const auto &log : impl_->read_also) out.push_back(&log);
  return out;
}

}  // namespace autotune
}  // namespace tetune
