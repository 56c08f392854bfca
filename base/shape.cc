#include "base/shape.h"

namespace tetune {

std::string shape_str(const Shape &s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < s.size(); i++) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

}  // namespace tetune
