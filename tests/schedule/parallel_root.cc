#include "tests/schedule/parallel_root.h"

namespace tetune {

std::string parallel_root(const Schedule &s) {
  for (const auto &st : s.stages())
    for (const auto &l : st.leaves) {
      if (l.annotation != "parallel") continue;
      std::string a = l.name;
      for (bool fused = true; fused;) {
        fused = false;
        for (const Relation &r : st.relations)
          if (r.kind == Relation::Fuse && r.parent == a) a = r.outer, fused = true;
      }
      const std::vector<std::string> roots = leaf_root_axes(st).at(a);
      return roots.empty() ? "" : roots.front();
    }
  return "";
}

}  // namespace tetune
