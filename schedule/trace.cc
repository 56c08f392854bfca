#include "schedule/trace.h"

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
Step rename_stages(Step st, F rename) {
  st.stage = rename(st.stage);
  if (st.kind == "compute_at") st.target = rename(st.target);
  if (st.kind == "cache_read")
    for (auto &a : st.axes) a = rename(a);
  return st;
}

}  // namespace

std::string trace_to_json(const Schedule &s) {
  std::vector<std::string> tensors = tensor_names(s);
  json steps = json::array();
  for (const auto &raw : s.trace()) {
    Step st = rename_stages(raw, [&](const std::string &n) { return to_canonical(n, tensors); });
    steps.push_back({{"kind", st.kind}, {"stage", st.stage}, {"axes", st.axes}, {"ints", st.ints}, {"target", st.target}});
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
      s.kind = js.at("kind").get<std::string>();
      s.stage = js.at("stage").get<std::string>();
      if (js.contains("axes")) s.axes = js["axes"].get<std::vector<std::string>>();
      if (js.contains("ints")) s.ints = js["ints"].get<std::vector<int64_t>>();
      if (js.contains("target")) s.target = js["target"].get<std::string>();
    } catch (const json::exception &e) {
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
