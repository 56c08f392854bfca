// Transfer: records of other targets and of other shapes of the same operator
// warm-start a task that has few records of its own.
//
// Donors are (workload, target) groups of the logs a RecordStore reads: the
// task's own workload measured on another compatible target (another CPU,
// other threads), then workloads of the same operator with other shapes,
// nearest first. Each donor record's trace is replayed on the task's compute;
// for another shape, a split or pack factor that does not divide its axis'
// new extent is replaced by the nearest divisor of that extent (the trace
// keeps its structure, tile sizes move to the nearest legal ones). A record
// that does not parse, replay or give features is skipped with a note naming
// its record id, log and why; none is used silently.
//
// The best schedules (TransferOptions::max_seeds, distinct) become seeds of a
// Space wrapper (transfer_space), which a policy measures in its first batch
// as it measures analytical seeds (Space::seeds); every donor record that
// replays trains the cost model, one training group per donor group
// (cost_model.h: throughputs normalised per group, as for one task's records).
// TVM's auto_scheduler has no such warm start; its ApplyHistoryBest uses only
// records of the exact workload key and target.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "autotune/cost_model/cost_model.h"
#include "autotune/measure/record_store.h"
#include "autotune/policy/space.h"
#include "schedule/schedule.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {

/** What collect_transfer() takes from the donors. */
struct TransferOptions {
  int max_seeds = 8;         ///< schedules measured first, in all (the tuner: half a batch)
  int seeds_per_group = 4;   ///< of them from one donor group, best first
  int max_groups = 4;        ///< donor groups read, nearest first
  int train_per_group = 32;  ///< best-ranked records of a group replayed for the cost model
  int max_other_shapes = 2;  ///< workloads of other shapes among the groups
};

/** A (workload, target) of one log whose records may warm-start a task. */
struct DonorGroup {
  bool same_workload = false;   ///< the task's own workload on another target; else another shape
  int log_index = 0;            ///< into RecordStore::logs()
  std::string log_path;         ///< the log (as opened; a URI's password as "***")
  std::string workload_key, workload_name;  ///< the name from the workload's description
  tuning_log::TargetInfo target;
  double shape_distance = 0;    ///< shape_distance() to the task (0 for the same workload)
  double target_distance = 0;   ///< tuning_log::compatibility_distance to the task's target
  /** For messages, e.g. "matmul_64x64x64 (workload 1a2b...) on 'Intel(R) Xeon(R) Processor', 2 threads, in shipped.db". */
  std::string describe() const;
};

/** One donor schedule made to replay on the task. */
struct TransferredSchedule {
  int64_t record_id = 0;
  int group = 0;                 ///< index into Transfer::groups
  std::vector<Step> steps;       ///< replay on the task's outputs
  std::shared_ptr<const Schedule> schedule;
  int adapted_factors = 0;       ///< split / pack factors changed to fit this shape
  double gflops = 0;             ///< as measured on the donor
};

/** What collect_transfer() found. */
struct Transfer {
  std::vector<DonorGroup> groups;
  std::vector<TransferredSchedule> seeds;   ///< distinct, best of each group first
  /** Per group (same index as groups): features and donor GFLOP/s of its records that replay. */
  std::vector<std::vector<std::vector<float>>> train_features;
  std::vector<std::vector<double>> train_gflops;
  /**
   * Donor records skipped, one line per group and reason: "record ID of GROUP: why", or "records ID, ID of
   * GROUP: why" when several records of a group fail alike (a model's traces naming its own tensors fail on
   * every other compute the same way).
   */
  std::vector<std::string> skipped;
  int skipped_records = 0;  ///< records those lines name
  /**
   * One line: how many schedules, how many adapted, from which groups, donor records trained on and skipped, e.g.
   * "1 schedule (1 adapted to this shape) from 1 donor group: 1 of matmul_64x64x64 (8df89202) on 'AMD EPYC',
   * 1 thread, in a.db; the cost model starts from 1 donor record". "" when no donor group was found.
   */
  std::string summary() const;
};

/**
 * The operator a workload row stands for: its op name without the group
 * index a model task carries ("g15_Conv_Relu" -> "Conv_Relu"; "matmul" as
 * is). Workloads of one operator differ only in shapes (and, for model
 * groups, attributes the trace may not fit: their records are replayed to
 * find out).
 */
std::string operator_of(const std::string &op_name);

/**
 * How far apart the shapes of two workloads are, from their description JSON
 * ({"name": ..., "flops": ...}, workload_description): the mean |log2| ratio
 * of the dimensions when both names end in dims of equal count
 * ("matmul_64x64x64"), else |log2| of the ratio of their flops. 0 = same
 * size; +inf when neither is readable.
 */
double shape_distance(const std::string &description_a, const std::string &description_b);

/**
 * Replays `steps` on outputs. With adapt, a split (or nparts split) whose
 * factor does not divide the current extent of its axis, and a pack_layout
 * whose factor does not divide its root axis, get the divisor of that extent
 * nearest the factor (on a log scale; ties: the smaller); *adapted counts the
 * changes. Raises ScheduleError (naming the step) when a step does not apply.
 */
Schedule replay_adapted(const std::vector<Tensor> &outputs, const std::vector<Step> &steps, bool adapt,
                        int *adapted = nullptr);

/**
 * Donor groups of store's logs for the task, nearest first: the task's
 * workload on other targets compatible with store.target() (by
 * compatibility_distance), then up to options.max_other_shapes workloads of
 * operator_of(store's op name) with other shapes (by shape_distance, each on
 * its nearest target); options.max_groups in all. Raises TuningLogError.
 */
std::vector<DonorGroup> find_donor_groups(const RecordStore &store, const TransferOptions &options);

/**
 * Reads the donor groups' best-ranked records (TuningLog::best), replays each
 * on the task (adapted when of another shape) and computes its features.
 * Seeds leave out schedules whose policy::steps_key is in `exclude` (the
 * task's measured ones). Raises TuningLogError; a record that cannot be used
 * is listed in skipped.
 */
Transfer collect_transfer(const Task &task, const RecordStore &store, const TransferOptions &options,
                          const std::set<std::string> &exclude = {});

/**
 * `inner` with `seeds` added as points of their own: seeds() returns inner's
 * first seed (the task's default schedule, what compile uses untuned), the
 * transferred schedules, then inner's other seeds; steps() and schedule() of
 * a transferred point are its donor's. Such a point is not a point of the
 * inner space: its family is "transfer", and mutating or crossing it gives a
 * random sample of the inner space (a policy evolves from the inner space's
 * points, which the cost model trained on donors ranks).
 */
std::unique_ptr<policy::Space> transfer_space(std::unique_ptr<policy::Space> inner,
                                              std::vector<TransferredSchedule> seeds);

/** True for a point transfer_space() made of a donor schedule. */
bool is_transferred(const Candidate &p);

/**
 * Trains `model` on the donor groups, one group each, then on the task's own
 * records (own_x, own_gflops) as one more; groups with no row are left out.
 * One retrain when the model is an XGBCostModel (update_groups), else one
 * update() per group.
 */
void train_with_donors(cost_model::CostModel &model, const Transfer &transfer,
                       const std::vector<std::vector<float>> &own_x, const std::vector<double> &own_gflops);

}  // namespace autotune
}  // namespace tetune
