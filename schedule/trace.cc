#include "schedule/trace.h"

#include <nlohmann/json.hpp>

#include "te/errors.h"

namespace tetune {

using nlohmann::json;

std::string trace_to_json(const Schedule &s) {
  json steps = json::array();
  for (const auto &st : s.trace())
    steps.push_back({{"kind", st.kind}, {"stage", st.stage}, {"axes", st.axes}, {"ints", st.ints}, {"target", st.target}});
  return json{{"version", 1}, {"steps", steps}}.dump();
}

std::vector<Step> trace_from_json(const std::string &text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception &e) {
    throw ParseError(std::string("schedule trace is not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("steps") || !j["steps"].is_array())
    throw ParseError("schedule trace must be an object with a \"steps\" array");
  std::vector<Step> out;
  int i = 0;
  for (const auto &js : j["steps"]) {
    try {
      Step s;
      s.kind = js.at("kind").get<std::string>();
      s.stage = js.at("stage").get<std::string>();
      if (js.contains("axes")) s.axes = js["axes"].get<std::vector<std::string>>();
      if (js.contains("ints")) s.ints = js["ints"].get<std::vector<int64_t>>();
      if (js.contains("target")) s.target = js["target"].get<std::string>();
      out.push_back(s);
    } catch (const json::exception &e) {
      throw ParseError("schedule trace step " + std::to_string(i) + " is malformed: " + e.what());
    }
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
