#include "autotune/candidate.h"

#include <sstream>

namespace tetune {
namespace autotune {

std::string Candidate::key() const {
  std::ostringstream os;
  os << "sketch=" << sketch;
  for (const auto &kv : params) os << ";" << kv.first << "=" << kv.second;
  return os.str();
}

}  // namespace autotune
}  // namespace tetune
