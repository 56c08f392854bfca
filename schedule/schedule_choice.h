// Where a task's schedule came from when a model is compiled: a measured
// record of a tuning log, the cost model's pick among unmeasured candidates,
// or the analytical default. compile prints it per task and manifest.json
// records it, so a user sees which kernels were never measured.
#pragma once

#include <string>

#include "schedule/schedule.h"

namespace tetune {

enum class ScheduleSource {
  Record,      ///< the best measured record of a tuning log (replayed trace)
  CostModel,   ///< ranked first by the cost model among unmeasured candidates
  Analytical,  ///< the analytical default (autotune/default_schedule.h), not ranked, not measured
};

/** "record", "cost model" or "analytical": the words compile prints and manifest.json stores. */
std::string source_name(ScheduleSource source);

/** A task's schedule and its provenance. */
struct ScheduleChoice {
  Schedule schedule;
  ScheduleSource source = ScheduleSource::Analytical;
  /** One line on how it was chosen, e.g. "record 42 of user log /x.db" or "analytical seed 2 of 6". */
  std::string detail;
};

}  // namespace tetune
