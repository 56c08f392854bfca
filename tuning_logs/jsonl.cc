#include "tuning_logs/jsonl.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/errors.h"

namespace tetune::tuning_log {
namespace {

using json = nlohmann::json;

json number_or_null(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}

[[noreturn]] void fail(size_t line, const std::string &why) {
  throw ParseError("JSONL line " + std::to_string(line) + ": " + why);
}

const json &member(const json &obj, const char *name, const char *where,
                   size_t line) {
  auto it = obj.find(name);
  if (it == obj.end()) {
    fail(line, std::string(where) + " is missing member '" + name + "'");
  }
  return *it;
}

std::string get_string(const json &obj, const char *name, const char *where,
                       size_t line, bool required = true) {
  auto it = obj.find(name);
  if (it == obj.end()) {
    if (required) fail(line, std::string(where) + " is missing member '" + name + "'");
    return "";
  }
  if (!it->is_string()) {
    fail(line, std::string(where) + "." + name + " must be a string");
  }
  return it->get<std::string>();
}

int64_t get_int(const json &obj, const char *name, const char *where,
                size_t line, bool required, int64_t dflt = 0) {
  auto it = obj.find(name);
  if (it == obj.end()) {
    if (required) fail(line, std::string(where) + " is missing member '" + name + "'");
    return dflt;
  }
  if (!it->is_number_integer()) {
    fail(line, std::string(where) + "." + name + " must be an integer");
  }
  return it->get<int64_t>();
}

double get_double(const json &obj, const char *name, const char *where,
                  size_t line, double dflt) {
  auto it = obj.find(name);
  if (it == obj.end()) return dflt;
  if (it->is_null()) return std::numeric_limits<double>::infinity();
  if (!it->is_number()) {
    fail(line, std::string(where) + "." + name + " must be a number or null");
  }
  return it->get<double>();
}

// A measured time in ms: finite and positive (a failed run is written as null).
double checked_ms(const json &v, const std::string &what, size_t line) {
  double ms = v.get<double>();
  if (!std::isfinite(ms) || ms <= 0) {
    fail(line, what + " = " + v.dump() + " is not a time: it must be a finite number of ms > 0 (null for a failed run)");
  }
  return ms;
}

}  // namespace

std::string to_jsonl_line(const JsonlEntry &e) {
  json j;
  j["format"] = kJsonlFormat;
  if (e.workload) {
    j["workload"] = {{"key", e.workload->key},
                     {"op_name", e.workload->op_name},
                     {"description_json", e.workload->description_json}};
  }
  if (e.target) {
    j["target"] = {{"kind", e.target->kind},
                   {"cpu_model", e.target->cpu_model},
                   {"features", e.target->features},
                   {"threads", e.target->threads},
                   {"library_versions", e.target->library_versions},
                   {"device", e.target->device}};
  }
  const MeasureRecord &r = e.record;
  json costs = json::array();
  for (double c : r.costs_ms) costs.push_back(number_or_null(c));
  std::string error_name =
      (r.error_code >= 0 && r.error_code <= 7)
          ? to_string(static_cast<ErrorCode>(r.error_code))
          : "unknown";
  j["record"] = {{"id", r.id},
                 {"workload_key", r.workload_key},
                 {"target_key", r.target_key},
                 {"schedule_json", r.schedule_json},
                 {"costs_ms", costs},
                 {"median_ms", number_or_null(r.median_ms)},
                 {"error_code", r.error_code},
                 {"error_name", error_name},
                 {"error_msg", r.error_msg},
                 {"gflops", number_or_null(r.gflops)},
                 {"timestamp_unix_ms", r.timestamp_unix_ms},
                 {"tuner_version", r.tuner_version},
                 {"trial_index", r.trial_index}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

JsonlEntry parse_jsonl_line(const std::string &line, size_t n) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception &err) {  // parse_error, and out_of_range for a number past double ("1e999")
    fail(n, std::string("invalid JSON: ") + err.what());
  }
  if (!j.is_object()) fail(n, "expected a JSON object");
  if (j.contains("format") &&
      (!j["format"].is_string() || j["format"].get<std::string>() != kJsonlFormat)) {
    fail(n, std::string("unsupported format ") + j["format"].dump() +
                ", expected \"" + kJsonlFormat + "\"");
  }
  JsonlEntry e;
  const json &r = member(j, "record", "line", n);
  if (!r.is_object()) fail(n, "'record' must be an object");
  MeasureRecord &m = e.record;
  m.id = get_int(r, "id", "record", n, false);
  m.workload_key = get_string(r, "workload_key", "record", n);
  m.target_key = get_string(r, "target_key", "record", n);
  m.schedule_json = get_string(r, "schedule_json", "record", n);
  if (auto it = r.find("costs_ms"); it != r.end()) {
    if (!it->is_array()) fail(n, "record.costs_ms must be an array");
    for (const auto &c : *it) {
      if (c.is_null()) m.costs_ms.push_back(std::numeric_limits<double>::infinity());
      else if (c.is_number()) m.costs_ms.push_back(checked_ms(c, "record.costs_ms[" + std::to_string(m.costs_ms.size()) + "]", n));
      else fail(n, "record.costs_ms must hold numbers or null");
    }
  }
  m.median_ms = get_double(r, "median_ms", "record", n, median_of(m.costs_ms));
  if (auto it = r.find("median_ms"); it != r.end() && it->is_number()) checked_ms(*it, "record.median_ms", n);
  int64_t code = get_int(r, "error_code", "record", n, true);
  if (code < 0 || code > 7) {
    fail(n, "record.error_code " + std::to_string(code) + " is out of range [0, 7]");
  }
  m.error_code = static_cast<int>(code);
  m.error_msg = get_string(r, "error_msg", "record", n, false);
  m.gflops = get_double(r, "gflops", "record", n, 0.0);
  if (auto it = r.find("gflops"); it != r.end() && it->is_number() && !(std::isfinite(m.gflops) && m.gflops >= 0))
    fail(n, "record.gflops = " + it->dump() + " must be a finite number >= 0 (null when unknown)");
  m.timestamp_unix_ms = get_int(r, "timestamp_unix_ms", "record", n, false);
  m.tuner_version = get_string(r, "tuner_version", "record", n, false);
  m.trial_index = static_cast<int>(get_int(r, "trial_index", "record", n, false));

  if (auto it = j.find("workload"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) fail(n, "'workload' must be an object");
    WorkloadInfo w;
    w.key = get_string(*it, "key", "workload", n);
    w.op_name = get_string(*it, "op_name", "workload", n, false);
    w.description_json = get_string(*it, "description_json", "workload", n, false);
    if (w.key != m.workload_key) {
      fail(n, "workload.key '" + w.key + "' differs from record.workload_key '" +
                  m.workload_key + "'");
    }
    e.workload = w;
  }
  if (auto it = j.find("target"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) fail(n, "'target' must be an object");
    TargetInfo t;
    t.kind = get_string(*it, "kind", "target", n);
    t.cpu_model = get_string(*it, "cpu_model", "target", n, false);
    t.features = get_string(*it, "features", "target", n, false);
    t.threads = static_cast<int>(get_int(*it, "threads", "target", n, true));
    t.library_versions = get_string(*it, "library_versions", "target", n, false);
    t.device = get_string(*it, "device", "target", n, false);
    if (t.key() != m.target_key) {
      fail(n, "target key '" + t.key() + "' differs from record.target_key '" +
                  m.target_key + "'");
    }
    e.target = t;
  }
  return e;
}

}  // namespace tetune::tuning_log
