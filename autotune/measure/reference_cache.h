// Reference outputs of tasks, kept across the Measurers of one process.
//
// Why: a Measurer checks every candidate against the task's unscheduled
// build, and that build costs 0.5-3 s of LLVM for a fused convolution (more
// than the candidates it checks). A model tuner makes a Measurer for each
// round of each task (tune() is called once per round), so without this cache
// it compiled every reference once per round.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/ndarray.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {

class ReferenceCache {
 public:
  using Outputs = std::shared_ptr<const std::vector<NDArray>>;

  /** Holds at most max_bytes of outputs (> 0); the least recently used entries go first. */
  explicit ReferenceCache(int64_t max_bytes = int64_t(1) << 30);

  /**
   * The key of `task`'s reference for inputs drawn with `seed` (Measurer's
   * inputs are a function of the task's inputs and the seed): its workload
   * key and the seed.
   */
  static std::string key(const Task &task, uint64_t seed);

  /** The stored outputs of `key` (now the most recently used), or null. */
  Outputs find(const std::string &key);
  /**
   * Stores `outputs` under `key` and evicts the least recently used entries
   * until the total fits max_bytes. Outputs larger than max_bytes alone are
   * not stored.
   */
  void insert(const std::string &key, Outputs outputs);

  int64_t bytes() const;
  size_t size() const;

 private:
  struct Entry {
    std::string key;
    Outputs outputs;
    int64_t bytes = 0;
  };
  mutable std::mutex mu_;
  int64_t max_bytes_;
  int64_t bytes_ = 0;
  std::list<Entry> lru_;  // most recently used first
  std::map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace autotune
}  // namespace tetune
