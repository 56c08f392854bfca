#include "schedule/step.h"

#include <sstream>
#include <type_traits>

#include "base/errors.h"

namespace tetune {

const char *to_string(TailStrategy t) {
  switch (t) {
    case TailStrategy::Auto: return "auto";
    case TailStrategy::GuardWithIf: return "guard_with_if";
    case TailStrategy::ShiftInwards: return "shift_inwards";
    case TailStrategy::RoundUp: return "round_up";
  }
  return "auto";
}

TailStrategy parse_tail_strategy(const std::string &s) {
  for (auto t : {TailStrategy::Auto, TailStrategy::GuardWithIf, TailStrategy::ShiftInwards, TailStrategy::RoundUp})
    if (s == to_string(t)) return t;
  throw ParseError("unknown tail strategy '" + s + "'");
}

namespace {
// "kind(stage, names..., ints..., extra)": the form messages and search-space keys have always used.
std::string describe(const char *kind, const std::string &stage, const std::vector<std::string> &names,
                     const std::vector<int64_t> &ints = {}, const std::string &extra = "") {
  std::ostringstream os;
  os << kind << "(" << stage;
  for (const auto &a : names) os << ", " << a;
  for (auto i : ints) os << ", " << i;
  if (!extra.empty()) os << ", " << extra;
  os << ")";
  return os.str();
}
}  // namespace

std::string SplitStep::str() const {
  return describe(kKind, stage, {axis}, {factor, nparts ? 1 : 0}, tail == TailStrategy::Auto ? "" : to_string(tail));
}
std::string FuseStep::str() const { return describe(kKind, stage, {outer, inner}); }
std::string ReorderStep::str() const { return describe(kKind, stage, order); }
std::string VectorizeStep::str() const { return describe(kKind, stage, {axis}); }
std::string UnrollStep::str() const { return describe(kKind, stage, {axis}); }
std::string ParallelStep::str() const { return describe(kKind, stage, {axis}); }
std::string ComputeAtStep::str() const { return describe(kKind, stage, {target_axis}, {}, target_stage); }
std::string ComputeInlineStep::str() const { return describe(kKind, stage, {}); }
std::string ComputeRootStep::str() const { return describe(kKind, stage, {}); }
std::string CacheReadStep::str() const { return describe(kKind, tensor, readers); }
std::string CacheWriteStep::str() const { return describe(kKind, stage, {}); }
std::string RfactorStep::str() const { return describe(kKind, stage, {axis}); }
std::string BindStep::str() const { return describe(kKind, stage, {axis}, {}, thread_tag); }
std::string PackLayoutStep::str() const { return describe(kKind, stage, {axis}, {factor}); }
std::string ReorderStorageStep::str() const { return describe(kKind, stage, order); }

std::string to_string(const Step &s) {
  return std::visit([](const auto &st) { return st.str(); }, s);
}

const char *step_kind(const Step &s) {
  return std::visit([](const auto &st) { return std::decay_t<decltype(st)>::kKind; }, s);
}

const std::string &step_stage(const Step &s) {
  return std::visit(
      [](const auto &st) -> const std::string & {
        if constexpr (std::is_same_v<std::decay_t<decltype(st)>, CacheReadStep>) return st.tensor;
        else return st.stage;
      },
      s);
}

}  // namespace tetune
