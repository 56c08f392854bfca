#include "autotune/mpi/mpi_worker.h"

#include <mpi.h>

#include <map>
#include <memory>

#include "autotune/mpi/mpi_messages.h"
#include "base/errors.h"
#include "schedule/trace.h"

namespace tetune {
namespace autotune {
namespace mpi {

namespace {

void send_json(const nlohmann::json &j, int tag) {
  std::string text = j.dump();
  if (MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, tag, MPI_COMM_WORLD) != MPI_SUCCESS)
    throw MeasureError("MPI worker: sending to rank 0 failed");
}

// Blocks until rank 0's next message; returns its tag and parsed text.
nlohmann::json receive(int *tag) {
  MPI_Status st;
  if (MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st) != MPI_SUCCESS) throw MeasureError("MPI worker: probe failed");
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string text(static_cast<size_t>(n), '\0');
  if (MPI_Recv(text.data(), n, MPI_CHAR, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    throw MeasureError("MPI worker: receive failed");
  *tag = st.MPI_TAG;
  return text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
}

}  // namespace

bool serve(const std::vector<Task> &tasks, const MeasureOptions &options, const std::string &setup_error,
           const WorkerTarget &target) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string who = "MPI rank " + std::to_string(rank);
  std::map<std::string, const Task *> by_key;
  for (const auto &t : tasks) by_key.emplace(t.workload_key, &t);
  std::map<std::string, std::unique_ptr<Measurer>> measurers;  // one per task, made on first use (its reference)

  for (;;) {
    int tag = 0;
    nlohmann::json msg = receive(&tag);
    if (tag == kStop) return msg.value("finalize", true);
    const std::string key = msg.value("key", "");
    auto it = by_key.find(key);
    if (tag == kProbe) {
      nlohmann::json reply = {{"probe", msg.value("probe", 0LL)}};
      if (!setup_error.empty())
        reply["error"] = setup_error;
      else if (it == by_key.end())
        reply["error"] = who + " has no task with workload key " + key;
      else
        reply["target"] = to_json(target.info(std::max(1, it->second->threads)));
      send_json(reply, kProbeReply);
    } else if (tag == kMeasure) {
      MeasureResult r;
      if (it == by_key.end()) {
        r.error = tuning_log::ErrorCode::kUnknown;
        r.error_msg = who + " has no task with workload key " + key;
      } else {
        const Task &task = *it->second;
        try {
          auto &m = measurers[key];
          if (!m) m = std::make_unique<Measurer>(target.retarget(task), options);
          MeasureInput in;
          in.test_fault = msg.value("fault", "");
          try {
            in.steps = trace_from_json(msg.value("schedule", ""), task.outputs);
          } catch (const Error &e) {
            r.error = tuning_log::ErrorCode::kInvalidSchedule;
            r.error_msg = e.what();
          }
          if (r.ok()) r = m->measure(in);
        } catch (const Error &e) {  // the machinery (fork, pipe, the reference) failed here
          r = MeasureResult{};
          r.error = tuning_log::ErrorCode::kUnknown;
          r.error_msg = who + ": " + e.what();
        }
      }
      send_json({{"id", msg.value("id", 0LL)}, {"result", to_json(r)}}, kResult);
    }
    // Other tags are not rank 0's; they are ignored.
  }
}

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
