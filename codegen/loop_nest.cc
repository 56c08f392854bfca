#include "codegen/loop_nest.h"

#include <sstream>

namespace tetune {

int64_t LoopNest::trip_count(int loop) const {
  int64_t n = 1;
  for (int i = loop; i >= 0; i = loops[i].parent) {
    if (loops[i].extent < 0) return -1;
    n *= loops[i].extent;
  }
  return n;
}

std::string LoopNest::str() const {
  std::ostringstream os;
  auto depth = [&](int i) {
    int d = 0;
    for (; i >= 0; i = loops[i].parent) d++;
    return d;
  };
  for (size_t i = 0; i < loops.size(); i++) {
    os << std::string(2 * (depth(static_cast<int>(i)) - 1), ' ') << loops[i].kind << " " << loops[i].name << " [" << loops[i].extent << "]\n";
    for (const auto &a : accesses)
      if (a.loop == static_cast<int>(i))
        os << std::string(2 * depth(static_cast<int>(i)), ' ') << (a.is_store ? "store " : "load ") << a.buffer << " x" << a.lanes
           << (a.dense ? " dense" : "") << "\n";
  }
  return os.str();
}

}  // namespace tetune
