// Cost-model datasets: measured records with the features of their schedules,
// as JSON lines in the spirit of TenSet (Zheng et al., NeurIPS 2021 Datasets
// and Benchmarks), written by `tetune cost-model export` and read by
// `tetune cost-model train` (tools/cost_model_cmd.cc).
//
// File format (one JSON object per line):
//   line 1, the header:
//     {"format": "tetune-cost-model-dataset", "version": 1,
//      "feature_names": ["g.n_loops", ...], "source": {"db": ..., "model": ..., ...}}
//   every further line, one successful record of the tuning log:
//     {"workload_key": ..., "task": "g12_Conv_Relu", "target_key": ..., "cpu_model": ...,
//      "threads": 2, "median_ms": 0.0123, "gflops": 45.6, "features": [148 numbers]}
// features are autotune::features::schedule_features() of the record's trace
// replayed on the task, the task's threads set to the record's target threads
// (what the tuner computed when it measured it), rounded to 4 significant
// digits; the header names them in order (features.h, feature_names()).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "autotune/cost_model/cost_model.h"

namespace tetune {
namespace cost_model {

constexpr const char *kDatasetFormat = "tetune-cost-model-dataset";
constexpr int kDatasetVersion = 1;

/** One measured record of a dataset. */
struct DatasetRecord {
  std::string workload_key, task, target_key, cpu_model;
  int threads = 1;
  double median_ms = 0;  ///< > 0 and finite
  double gflops = 0;
  std::vector<float> features;
};

struct Dataset {
  std::vector<std::string> feature_names;
  std::map<std::string, std::string> source;  ///< the header's "source" (strings only)
  std::vector<DatasetRecord> records;
};

/** The header line (no newline). */
std::string dataset_header_line(const std::vector<std::string> &feature_names,
                                const std::map<std::string, std::string> &source);

/** One record line (no newline); features rounded to 4 significant digits. */
std::string dataset_record_line(const DatasetRecord &record);

/**
 * Reads a dataset file. Raises tetune::ParseError "PATH:LINE: ..." for a
 * missing or foreign header, a malformed line, a record without a field, a
 * non-positive median_ms, or a feature row whose length differs from the
 * header's names; tetune::Error when the file cannot be read.
 */
Dataset read_dataset(const std::string &path);

/** Records of one workload on one target: one query group of the ranking objective. */
struct QueryGroup {
  std::string workload_key, target_key, cpu_model;
  std::vector<std::vector<float>> features;
  std::vector<double> throughputs;  ///< 1 / median_ms
};

/** One group per (workload_key, target_key), sorted by that pair; records keep their file order. */
std::vector<QueryGroup> query_groups(const std::vector<DatasetRecord> &records);

/**
 * The workloads `train --holdout-split n` keeps out of training:
 * FNV-1a 64 of workload_key, modulo n, is 0 (about one in n). False for n <= 0.
 */
bool held_out_workload(const std::string &workload_key, int n);

/** How well a model orders the records of query groups (ranking_metrics.h). */
struct RankingQuality {
  int groups = 0;                 ///< groups with at least two distinct throughputs
  std::int64_t records = 0;       ///< their records
  double pairwise_accuracy = 0;   ///< mean over groups of pairwise_accuracy(scores, throughputs); 0.5 = random
  double pooled_accuracy = 0;     ///< the same over all pairs of all groups (a group weighs its pairs); 0.5 = random
  double kendall_tau = 0;         ///< mean over groups where tau-b is defined
  double top1_ratio = 0;          ///< mean of throughput(model's top record) / best throughput; 1 = always the best
};

/**
 * Ranking quality of `model` over the groups that have at least two distinct
 * throughputs (others carry no order). A tie for the top score takes the
 * first record. All zeros (groups = 0) when no group qualifies.
 */
RankingQuality ranking_quality(const CostModel &model, const std::vector<QueryGroup> &groups);

/**
 * The expected ranking quality of a uniformly random order over the same
 * groups: pairwise accuracy 0.5, Kendall tau 0, top-1 the mean over groups of
 * mean throughput / best throughput.
 */
RankingQuality random_ranking_quality(const std::vector<QueryGroup> &groups);

}  // namespace cost_model
}  // namespace tetune
