// The messages between MPI rank 0 (the tuner) and the worker ranks that
// measure its candidates: JSON text in MPI_CHAR messages on MPI_COMM_WORLD,
// one tag per kind. Rank 0 sends kProbe / kMeasure / kStop; a worker answers
// kProbe with kProbeReply and kMeasure with kResult, in the order received.
//
//   kProbe       {"probe": id, "key": workload key}
//   kProbeReply  {"probe": id, "target": TargetInfo} or {"probe": id, "error": why}
//   kMeasure     {"id": job, "key": workload key, "schedule": trace JSON, "fault": test fault}
//   kResult      {"id": job, "result": MeasureResult}
//   kStop        {"finalize": whether to call MPI_Finalize (false once a rank was dropped)}
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "autotune/measure/measure.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace autotune {
namespace mpi {

enum Tag : int { kProbe = 1, kProbeReply = 2, kMeasure = 3, kResult = 4, kStop = 5 };

/** Largest message rank 0 receives (bytes); a worker shortens error messages to stay under it. */
constexpr int kMaxMessageBytes = 1 << 20;

nlohmann::json to_json(const MeasureResult &r);
/** Raises MeasureError naming the missing or ill-typed field. */
MeasureResult result_from_json(const nlohmann::json &j);

nlohmann::json to_json(const tuning_log::TargetInfo &t);
/** Raises MeasureError naming the missing or ill-typed field. */
tuning_log::TargetInfo target_from_json(const nlohmann::json &j);

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
