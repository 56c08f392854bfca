#include "autotune/mpi/mpi_messages.h"

#include <limits>

#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace mpi {

namespace {
constexpr size_t kMaxErrorChars = 64 * 1024;  // far below kMaxMessageBytes

template <class T>
T field(const nlohmann::json &j, const char *name) {
  try {
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception &e) {
    throw MeasureError(std::string("MPI message: field '") + name + "': " + e.what());
  }
}
}  // namespace

nlohmann::json to_json(const MeasureResult &r) {
  std::string msg = r.error_msg.size() > kMaxErrorChars ? r.error_msg.substr(0, kMaxErrorChars) + " [...]" : r.error_msg;
  return {{"error", static_cast<int>(r.error)},
          {"error_msg", msg},
          {"costs_ms", r.costs_ms},
          {"compile_s", r.compile_s},
          {"wall_s", r.wall_s}};
}

MeasureResult result_from_json(const nlohmann::json &j) {
  MeasureResult r;
  int code = field<int>(j, "error");
  if (code < 0 || code > static_cast<int>(tuning_log::ErrorCode::kUnknown))
    throw MeasureError("MPI message: unknown error code " + std::to_string(code));
  r.error = static_cast<tuning_log::ErrorCode>(code);
  r.error_msg = field<std::string>(j, "error_msg");
  r.costs_ms = field<std::vector<double>>(j, "costs_ms");
  r.compile_s = field<double>(j, "compile_s");
  r.wall_s = field<double>(j, "wall_s");
  r.median_ms = std::numeric_limits<double>::infinity();  // finalize_result fills it from the costs
  return r;
}

nlohmann::json to_json(const tuning_log::TargetInfo &t) {
  return {{"kind", t.kind},     {"cpu_model", t.cpu_model}, {"features", t.features},
          {"threads", t.threads}, {"library_versions", t.library_versions}, {"device", t.device}};
}

tuning_log::TargetInfo target_from_json(const nlohmann::json &j) {
  tuning_log::TargetInfo t;
  t.kind = field<std::string>(j, "kind");
  t.cpu_model = field<std::string>(j, "cpu_model");
  t.features = field<std::string>(j, "features");
  t.threads = field<int>(j, "threads");
  t.library_versions = field<std::string>(j, "library_versions");
  t.device = field<std::string>(j, "device");
  return t;
}

}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
