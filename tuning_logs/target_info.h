// Description of the machine a record was measured on, and how close two
// such machines are.
#pragma once

#include <string>

namespace tetune::tuning_log {

/** The hardware/software a measurement was taken on. */
struct TargetInfo {
  std::string kind;              ///< "llvm" (CPU) or "cuda"
  std::string cpu_model;         ///< /proc/cpuinfo "model name"
  std::string features;          ///< sorted, comma-separated ISA features, e.g. "avx2,avx512f,fma"
  int threads = 1;               ///< worker threads used for measurement
  std::string library_versions;  ///< e.g. "halide=14.0.0"
  std::string device;            ///< GPU name, "" for CPU targets

  /**
   * Canonical key: every field joined, e.g.
   * "kind=llvm|cpu=Intel Xeon|features=avx2,fma|threads=8|libs=halide=14.0.0|device=".
   * '|' and '\' inside fields are escaped with '\', so distinct targets
   * always get distinct keys.
   */
  std::string key() const;

  bool operator==(const TargetInfo &o) const { return key() == o.key(); }
  bool operator!=(const TargetInfo &o) const { return !(*this == o); }
};

/** The library versions this build records by default. */
inline constexpr const char *kDefaultLibraryVersions = "halide=14.0.0";

/**
 * The host CPU as an "llvm" target: cpu_model from the first "model name"
 * line of /proc/cpuinfo (ARM: "Hardware"/"CPU part"; "unknown" if absent),
 * features = the SIMD-relevant subset of the "flags" line, sorted and
 * comma-joined. threads <= 0 means std::thread::hardware_concurrency().
 * Never throws: unreadable /proc/cpuinfo yields cpu_model "unknown".
 */
TargetInfo host_target_info(int threads,
                            const std::string &library_versions =
                                kDefaultLibraryVersions);

/** Parses /proc/cpuinfo-formatted text (exposed for tests). */
TargetInfo target_info_from_cpuinfo(const std::string &cpuinfo_text,
                                    int threads,
                                    const std::string &library_versions);

/**
 * How unlike two targets are, as a non-negative score (lower = closer):
 *   0                      identical keys
 *   +inf                   incompatible: different kind, or different GPU
 *                          device for "cuda" (use is_compatible())
 *   +1 .. +4               same machine, different thread count
 *                          (1 + 0.5 * |log2(a.threads / b.threads)|, capped)
 *   +2                     different library_versions
 *   +10 + #differing feats different ISA feature sets
 *   +50                    different cpu_model
 * Contributions add up, so "only threads differ" is always closer than
 * "features differ", which is closer than "cpu_model differs". Symmetric.
 */
double compatibility_distance(const TargetInfo &a, const TargetInfo &b);

/** True when compatibility_distance(a, b) is finite. */
bool is_compatible(const TargetInfo &a, const TargetInfo &b);

/** Human-readable list of the fields that differ, e.g. "threads 8 vs 16". */
std::string describe_difference(const TargetInfo &a, const TargetInfo &b);

/**
 * One line on how `used` (a record's target) differs from `want`: its CPU
 * model, how many ISA features either lacks, threads, library versions, e.g.
 * "cpu 'Intel(R) Xeon(R) Processor', 5 features this CPU lacks" (the feature
 * names are in describe_difference).
 */
std::string brief_difference(const TargetInfo &want, const TargetInfo &used);

}  // namespace tetune::tuning_log
