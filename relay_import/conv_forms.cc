#include "relay_import/conv_forms.h"

#include <cmath>
#include <map>
#include <sstream>

#include "relay_import/executor.h"
#include "relay_import/passes/fusion.h"
#include "relay_import/passes/winograd.h"

namespace tetune {
namespace relay {

namespace {

// The kernel groups of a graph fused as compile_model fuses it, by the values
// they compute; each group's task is built on first use.
class GroupTasks {
 public:
  GroupTasks(const Graph &g, const CompileOptions &options) : g_(g), options_(options), groups_(fuse_graph(g, options.fusion)) {
    for (size_t i = 0; i < groups_.size(); i++)
      for (int n : groups_[i].nodes)
        for (int v : g.nodes[n].outputs)
          if (v >= 0) group_of_[g.values[v].name] = i;
  }

  /** The task of the kernel group that computes `value`; null when none does (CSE merged the value away). */
  const Task *of(const std::string &value) {
    auto it = group_of_.find(value);
    if (it == group_of_.end()) return nullptr;
    FusedGroup &grp = groups_[it->second];
    if (grp.kind != FusedGroup::Kernel) return nullptr;
    if (grp.te_outputs.empty()) build_group(g_, grp, options_.target, options_.threads);
    return &grp.task;
  }

 private:
  const Graph &g_;
  const CompileOptions &options_;
  std::vector<FusedGroup> groups_;
  std::map<std::string, size_t> group_of_;
};

std::string ms(double t) {
  if (std::isnan(t)) return "-";
  std::ostringstream os;
  os.precision(4);
  os << t << " ms";
  return os.str();
}

}  // namespace

std::vector<ConvForms> conv_forms(const Graph &g, const CompileOptions &options) {
  Graph winograd = g;
  // Their output values, named before the cleanup passes can merge any.
  const std::vector<std::string> convs = convert_convs_to_winograd(winograd);
  if (convs.empty()) return {};
  Graph direct = g;
  run_cleanup_passes(direct, options);
  run_cleanup_passes(winograd, options);
  GroupTasks direct_tasks(direct, options), winograd_tasks(winograd, options);
  std::vector<ConvForms> out;
  for (const std::string &conv : convs) {
    const Task *d = direct_tasks.of(conv);
    if (!d) continue;  // no kernel computes it (a conv always has one; checked, not assumed)
    ConvForms f;
    f.conv = conv;
    f.direct = *d;
    const WinogradValueNames names = winograd_value_names(f.conv);
    for (const std::string &v : {names.input, names.product, names.output})
      if (const Task *t = winograd_tasks.of(v)) f.winograd.push_back(*t);
    if (options.record_ms) {
      f.direct_ms = options.record_ms(f.direct);
      if (f.winograd.size() == 3) {
        f.winograd_ms = 0;
        for (const Task &t : f.winograd) f.winograd_ms += options.record_ms(t);
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string format_conv_forms(const std::vector<ConvForms> &forms) {
  if (forms.empty()) return "";
  std::ostringstream os;
  os << "conv forms by their records (the faster of direct and Winograd):\n";
  for (const ConvForms &f : forms)
    os << "  " << f.conv << "  direct " << ms(f.direct_ms) << ", Winograd " << ms(f.winograd_ms) << ": "
       << (f.direct_faster() ? "direct" : "Winograd") << "\n";
  return os.str();
}

}  // namespace relay
}  // namespace tetune
