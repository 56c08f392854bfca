#include "autotune/measure/reference_cache.h"

#include "base/errors.h"

namespace tetune {
namespace autotune {

ReferenceCache::ReferenceCache(int64_t max_bytes) : max_bytes_(max_bytes) {
  if (max_bytes <= 0) throw Error("ReferenceCache: max_bytes must be > 0, got " + std::to_string(max_bytes));
}

std::string ReferenceCache::key(const Task &task, uint64_t seed) {
  return task.workload_key + "|seed=" + std::to_string(seed);
}

ReferenceCache::Outputs ReferenceCache::find(const std::string &key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->outputs;
}

void ReferenceCache::insert(const std::string &key, Outputs outputs) {
  if (!outputs) return;
  int64_t nbytes = 0;
  for (const auto &a : *outputs) nbytes += a.nbytes();
  std::lock_guard<std::mutex> lock(mu_);
  auto old = index_.find(key);
  if (old != index_.end()) {
    bytes_ -= old->second->bytes;
    lru_.erase(old->second);
    index_.erase(old);
  }
  if (nbytes > max_bytes_) return;
  while (!lru_.empty() && bytes_ + nbytes > max_bytes_) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  lru_.push_front(Entry{key, std::move(outputs), nbytes});
  index_[key] = lru_.begin();
  bytes_ += nbytes;
}

int64_t ReferenceCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t ReferenceCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
}

}  // namespace autotune
}  // namespace tetune
