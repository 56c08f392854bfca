#include "schedule/trace.h"

#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "base/errors.h"

namespace tetune {

using nlohmann::json;

namespace {

// The names s gives the tensors of its DAG, in post order (the workload
// key's tensor numbering). Placeholders keep their own names.
std::vector<std::string> tensor_names(const Schedule &s) {
  std::vector<std::string> names;
  for (const auto &t : post_order(s.outputs())) names.push_back(t.is_placeholder() ? t.name() : s.stage_of(t));
  return names;
}

// A stage name is a tensor name plus the suffixes of the steps that made it
// (".local", ".cache1", ".rf"). The longest tensor name that prefixes it wins,
// since tensor names may themselves hold dots ("p2o_Conv_3.conv").
std::string to_canonical(const std::string &name, const std::vector<std::string> &tensors) {
  size_t best = 0;
  int id = -1;
  for (size_t i = 0; i < tensors.size(); i++) {
    const std::string &t = tensors[i];
    bool prefix = name.compare(0, t.size(), t) == 0 && (name.size() == t.size() || name[t.size()] == '.');
    if (prefix && t.size() > best) best = t.size(), id = static_cast<int>(i);
  }
  if (id < 0) return name;  // not a stage name (cannot happen for a replayed schedule)
  return "t" + std::to_string(id) + name.substr(best);
}

std::string from_canonical(const std::string &name, const std::vector<std::string> &tensors, int step) {
  size_t dot = name.find('.');
  std::string head = name.substr(0, dot);
  bool numbered = head.size() > 1 && head[0] == 't' && head.find_first_not_of("0123456789", 1) == std::string::npos;
  if (!numbered)
    throw ParseError("schedule trace step " + std::to_string(step) + ": '" + name + "' is not a canonical tensor name t<n>");
  size_t id = head.size() > 9 ? tensors.size() : std::stoul(head.substr(1));
  if (id >= tensors.size())
    throw ParseError("schedule trace step " + std::to_string(step) + ": tensor '" + head + "' does not exist; this compute has " +
                     std::to_string(tensors.size()) + " tensors (is the record from another workload?)");
  return tensors[id] + (dot == std::string::npos ? "" : name.substr(dot));
}

// Applies rename to every field of step that names a stage or tensor.
template <typename F>
Step rename_stages(Step step, F rename) {
  std::visit(
      [&](auto &st) {
        using S = std::decay_t<decltype(st)>;
        if constexpr (std::is_same_v<S, CacheReadStep>) {
          st.tensor = rename(st.tensor);
          for (auto &r : st.readers) r = rename(r);
        } else {
          st.stage = rename(st.stage);
        }
        if constexpr (std::is_same_v<S, ComputeAtStep>) st.target_stage = rename(st.target_stage);
      },
      step);
  return step;
}

// ---- one step as a record ----------------------------------------------------
// Every record has the five fields of version 1, whatever the step uses:
// {"axes": [...], "ints": [...], "kind", "stage", "target"}; a field a step
// does not use is written empty. Written traces read back to the same text.

json record(const char *kind, const std::string &stage, const std::vector<std::string> &axes,
            const std::vector<int64_t> &ints = {}, const std::string &target = "") {
  return {{"kind", kind}, {"stage", stage}, {"axes", axes}, {"ints", ints}, {"target", target}};
}

json to_record(const SplitStep &s) {
  return record(s.kKind, s.stage, {s.axis}, {s.factor, s.nparts ? 1 : 0}, s.tail == TailStrategy::Auto ? "" : to_string(s.tail));
}
json to_record(const FuseStep &s) { return record(s.kKind, s.stage, {s.outer, s.inner}); }
json to_record(const ReorderStep &s) { return record(s.kKind, s.stage, s.order); }
json to_record(const VectorizeStep &s) { return record(s.kKind, s.stage, {s.axis}); }
json to_record(const UnrollStep &s) { return record(s.kKind, s.stage, {s.axis}); }
json to_record(const ParallelStep &s) { return record(s.kKind, s.stage, {s.axis}); }
json to_record(const ComputeAtStep &s) { return record(s.kKind, s.stage, {s.target_axis}, {}, s.target_stage); }
json to_record(const ComputeInlineStep &s) { return record(s.kKind, s.stage, {}); }
json to_record(const ComputeRootStep &s) { return record(s.kKind, s.stage, {}); }
json to_record(const CacheReadStep &s) { return record(s.kKind, s.tensor, s.readers); }
json to_record(const CacheWriteStep &s) { return record(s.kKind, s.stage, {}); }
json to_record(const RfactorStep &s) { return record(s.kKind, s.stage, {s.axis}); }
json to_record(const BindStep &s) { return record(s.kKind, s.stage, {s.axis}, {}, s.thread_tag); }
json to_record(const PackLayoutStep &s) { return record(s.kKind, s.stage, {s.axis}, {s.factor}); }
json to_record(const ReorderStorageStep &s) { return record(s.kKind, s.stage, s.order); }

// The fields of a record ("axes", "ints" and "target" may be absent: empty).
// A field count a step cannot take raises ParseError; fields it does not use are ignored.
struct RecordFields {
  std::string kind, stage, target;
  std::vector<std::string> axes;
  std::vector<int64_t> ints;

  explicit RecordFields(const json &js)
      : kind(js.at("kind").get<std::string>()),
        stage(js.at("stage").get<std::string>()),
        target(js.contains("target") ? js["target"].get<std::string>() : ""),
        axes(js.contains("axes") ? js["axes"].get<std::vector<std::string>>() : std::vector<std::string>{}),
        ints(js.contains("ints") ? js["ints"].get<std::vector<int64_t>>() : std::vector<int64_t>{}) {}
  const std::string &axis(size_t n_axes = 1) const {
    if (axes.size() != n_axes) throw ParseError(kind + " takes " + std::to_string(n_axes) + " axis name(s), got " + std::to_string(axes.size()));
    return axes[0];
  }
  int64_t int_at(size_t i, size_t n_ints) const {
    if (ints.size() != n_ints) throw ParseError(kind + " takes " + std::to_string(n_ints) + " integer(s), got " + std::to_string(ints.size()));
    return ints[i];
  }
};

Step from_record(const RecordFields &r) {
  const std::string &k = r.kind;
  if (k == SplitStep::kKind)
    return SplitStep{r.stage, r.axis(), r.int_at(0, 2), r.int_at(1, 2) != 0,
                     r.target.empty() ? TailStrategy::Auto : parse_tail_strategy(r.target)};
  if (k == FuseStep::kKind) return FuseStep{r.stage, r.axis(2), r.axes[1]};
  if (k == ReorderStep::kKind) return ReorderStep{r.stage, r.axes};
  if (k == VectorizeStep::kKind) return VectorizeStep{r.stage, r.axis()};
  if (k == UnrollStep::kKind) return UnrollStep{r.stage, r.axis()};
  if (k == ParallelStep::kKind) return ParallelStep{r.stage, r.axis()};
  if (k == ComputeAtStep::kKind) return ComputeAtStep{r.stage, r.target, r.axis()};
  if (k == ComputeInlineStep::kKind) return ComputeInlineStep{r.stage};
  if (k == ComputeRootStep::kKind) return ComputeRootStep{r.stage};
  if (k == CacheReadStep::kKind) return CacheReadStep{r.stage, r.axes};
  if (k == CacheWriteStep::kKind) return CacheWriteStep{r.stage};
  if (k == RfactorStep::kKind) return RfactorStep{r.stage, r.axis()};
  if (k == BindStep::kKind) return BindStep{r.stage, r.axis(), r.target};
  if (k == PackLayoutStep::kKind) return PackLayoutStep{r.stage, r.axis(), r.int_at(0, 1)};
  if (k == ReorderStorageStep::kKind) return ReorderStorageStep{r.stage, r.axes};
  throw ParseError("unknown step kind '" + k + "'");
}

}  // namespace

std::string trace_to_json(const Schedule &s) {
  std::vector<std::string> tensors = tensor_names(s);
  json steps = json::array();
  for (const auto &raw : s.trace()) {
    Step st = rename_stages(raw, [&](const std::string &n) { return to_canonical(n, tensors); });
    steps.push_back(std::visit([](const auto &s) { return to_record(s); }, st));
  }
  return json{{"version", 2}, {"steps", steps}}.dump();
}

std::vector<Step> trace_from_json(const std::string &text, const std::vector<Tensor> &outputs) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception &e) {
    throw ParseError(std::string("schedule trace is not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("steps") || !j["steps"].is_array())
    throw ParseError("schedule trace must be an object with a \"steps\" array");
  int version = j.contains("version") && j["version"].is_number_integer() ? j["version"].get<int>() : 1;
  if (version < 1 || version > 2) throw ParseError("schedule trace version " + std::to_string(version) + " is not known (1 or 2)");
  std::vector<std::string> tensors = version == 2 ? tensor_names(Schedule(outputs)) : std::vector<std::string>{};
  std::vector<Step> out;
  int i = 0;
  for (const auto &js : j["steps"]) {
    Step s;
    try {
      s = from_record(RecordFields(js));
    } catch (const json::exception &e) {
      throw ParseError("schedule trace step " + std::to_string(i) + " is malformed: " + e.what());
    } catch (const ParseError &e) {
      throw ParseError("schedule trace step " + std::to_string(i) + " is malformed: " + e.what());
    }
    if (version == 2) s = rename_stages(s, [&](const std::string &n) { return from_canonical(n, tensors, i); });
    out.push_back(s);
    i++;
  }
  return out;
}

Schedule replay(const std::vector<Tensor> &outputs, const std::vector<Step> &steps) {
  Schedule s(outputs);
  for (const auto &st : steps) s.apply(st);
  return s;
}

}  // namespace tetune
