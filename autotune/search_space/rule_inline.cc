// Rule "always inline" (Ansor's RuleAlwaysInline): a strictly inlineable
// stage (elementwise, cheap, plain indices, not an output, not a reduction) is
// inlined into its consumers in every sketch.
//
// Other non-output stages (a conv's pad stage with its select, expensive
// elementwise stages, small reductions) get a compute-location parameter
// "<stage>.loc": 0 = inline (non-reductions only), 1 = root, 2 = at a loop of
// its unique consumer ("<stage>.at" picks which of the consumer's attach
// points; kAtRow, for rfactor's row form and the stages it reads: the
// consumer's row loop). The location is resolved at instantiation: "at" falls
// back to root when the stage has several (non-inlined) consumers, unless all
// but one are computed at one loop of that one (softmax's exp, read by its
// sum at the output's row and by the output): then at that loop.
#include <algorithm>
#include <map>

#include "autotune/search_space/search_space_internal.h"

namespace tetune {
namespace autotune {
namespace ss {

namespace {
class RuleInline : public SketchRule {
 public:
  std::string name() const override { return "always_inline"; }
  RuleResult condition(const Graph &g, const Sketch &, const std::string &stage) const override {
    return is_strictly_inlineable(g.stage(stage)) ? RuleResult::ApplyAndSkipRest : RuleResult::Skip;
  }
  std::vector<Sketch> apply(const Graph &, const Sketch &s, const std::string &stage) const override {
    Sketch out = s;
    StagePlan &p = out.plan(stage);
    p.kind = PlanKind::Inline;
    return {out};
  }
};
}  // namespace

std::unique_ptr<SketchRule> make_rule_inline() { return std::make_unique<RuleInline>(); }

void add_location_params(const Graph &g, const StagePlan &p, Sketch &s) {
  if (!p.loc_choice) return;
  const StageInfo &st = g.stage(p.stage);
  if (st.is_reduction())
    s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".loc", {1, 2}, {0.5, 0.5}});
  else
    s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".loc", {0, 1, 2}, {0.5, 0.25, 0.25}});
  if (row_form_related(g, s, p.stage))
    s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".at", {0, 1, kAtRow}, {}});
  else
    s.choices.push_back(ChoiceSpec{p.stage, p.stage + ".at", {0, 1}, {}});
}

std::string resolve_consumer(const Inst &in, const std::string &stage, std::string *at_loop) {
  std::map<std::string, const Placed *> readers;  // non-inlined consumers by compute name
  std::set<std::string> seen;
  std::vector<std::string> todo;
  auto it = in.g.consumers.find(stage);
  if (it != in.g.consumers.end()) todo = it->second;
  while (!todo.empty()) {
    std::string c = todo.back();
    todo.pop_back();
    if (!seen.insert(c).second) continue;
    auto pt = in.placed.find(c);
    if (pt == in.placed.end()) return "";  // not scheduled yet (cannot happen: consumers go first)
    if (pt->second.inlined) {
      auto jt = in.g.consumers.find(c);
      if (jt != in.g.consumers.end()) todo.insert(todo.end(), jt->second.begin(), jt->second.end());
    } else {
      readers[pt->second.compute_name] = &pt->second;
    }
  }
  if (readers.size() == 1) return readers.begin()->first;
  if (!at_loop) return "";
  // Several: the others computed at one loop of one of them (the host), which then holds every read.
  std::string host, loop;
  for (const auto &[name, r] : readers) {
    if (r->at_stage.empty()) continue;
    if (!host.empty() && (r->at_stage != host || r->at_loop != loop)) return "";
    host = r->at_stage;
    loop = r->at_loop;
  }
  if (host.empty() || !readers.count(host)) return "";
  for (const auto &[name, r] : readers)
    if (r->at_stage.empty() && name != host) return "";
  *at_loop = loop;
  return host;
}

bool place_stage(Inst &in, const StagePlan &p, bool &inlined) {
  inlined = false;
  const StageInfo &st = in.g.stage(p.stage);
  if (st.is_output || !p.loc_choice) return false;
  int64_t loc = in.param(p.stage + ".loc", 1);
  if (loc == 0 && !st.is_reduction()) {
    in.sch.compute_inline(p.stage);
    inlined = true;
    return false;
  }
  if (loc != 2) return false;
  const int64_t k = in.param(p.stage + ".at", 0);
  std::string shared_loop;
  std::string target = resolve_consumer(in, p.stage, k == kAtRow ? &shared_loop : nullptr);
  if (target.empty()) return false;
  auto it = in.placed.find(target);
  if (it == in.placed.end() || it->second.attach_points.empty()) return false;
  const Placed &t = it->second;
  std::string loop;
  bool row = false;
  if (!shared_loop.empty()) {  // where the consumers computed inside target are
    loop = shared_loop;
    row = shared_loop == t.row_point;
  } else if (k == kAtRow && (!t.row_point.empty() || t.at_row)) {
    loop = t.row_point.empty() ? t.attach_points.front() : t.row_point;
    row = true;
  } else {
    loop = t.attach_points[std::max<int64_t>(0, std::min<int64_t>(k, static_cast<int64_t>(t.attach_points.size()) - 1))];
  }
  in.sch.compute_at(p.stage, target, loop);
  Placed &me = in.placed[p.stage];
  me.at_stage = target;
  me.at_loop = loop;
  me.at_row = row;
  return true;
}

}  // namespace ss
}  // namespace autotune
}  // namespace tetune
